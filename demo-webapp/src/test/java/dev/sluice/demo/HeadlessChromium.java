package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real headless Chromium (Debian's {@code chromium}) for the page tests: the DOM of a page once its scripts and
 * fetches are done ({@code --virtual-time-budget}), or a screenshot. On a machine without Chromium the tests are
 * skipped, saying which package to install; {@code -Dsluice.browser.required=true} makes a missing browser a failure.
 */
final class HeadlessChromium {

    private final Path chromium;
    private final Path temp;

    private HeadlessChromium(Path chromium, Path temp) {
        this.chromium = chromium;
        this.temp = temp;
    }

    /** The browser, working in {@code temp}; skips the test (or fails it, when required) without one. */
    static HeadlessChromium inDirectory(Path temp) {
        Optional<Path> found = List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).stream()
                .map(directory -> Path.of(directory, "chromium"))
                .filter(Files::isExecutable)
                .findFirst();
        String missing = "chromium is not installed: run 'apt-get install -y chromium' to run this test";
        if (found.isEmpty() && Boolean.getBoolean("sluice.browser.required")) {
            fail(missing + " (sluice.browser.required is set)");
        }
        Assumptions.assumeTrue(found.isPresent(), missing);
        return new HeadlessChromium(found.get(), temp);
    }

    /** The page's DOM after its scripts ran. */
    String dumpDom(String url) throws Exception {
        Path out = temp.resolve("dom.html");
        run(out, "--dump-dom", url);
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    /** A PNG of the page after its scripts ran, {@code width} by {@code height} pixels, written to {@code png}. */
    void screenshot(String url, Path png, int width, int height) throws Exception {
        run(temp.resolve("screenshot.log"), "--hide-scrollbars", "--window-size=" + width + "," + height,
                "--screenshot=" + png.toAbsolutePath(), url);
        assertThat(png).isNotEmptyFile();
    }

    private void run(Path out, String... arguments) throws Exception {
        Path err = temp.resolve("chromium.log");
        List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--user-data-dir=" + temp.resolve("profile"), "--virtual-time-budget=10000"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("chromium did not finish within 120 s; its log:\n" + Files.readString(err));
        }
        assertThat(process.exitValue()).as("chromium's exit code; its log:\n%s", Files.readString(err)).isZero();
    }
}
