package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * A Java block as a compilation unit: a block that declares a type is compiled as it is; a fragment becomes the
 * body of a method in a class whose fields are the names the examples take as given (a store, a servlet context,
 * a client address, ...). Imports stay imports. Each block gets a package of its own.
 */
public final class JavaExample extends SimpleJavaFileObject {

    private static final Pattern TYPE = Pattern.compile(
            "^(public |final |abstract )*(class|interface|record|enum) (\\w+)", Pattern.MULTILINE);
    private static final String GIVEN = """
                String clientIp = "203.0.113.7";
                String apiKey = "k1";
                String token = "an-operations-token";
                jakarta.servlet.ServletContext servletContext;
                dev.sluice.store.CounterStore store;
                dev.sluice.store.CounterStore myCounterStore;
                dev.sluice.engine.ReloadingRuleSet reloadingRules;
                dev.sluice.rules.match.RequestView requestView;
                static final class SearchResource {
                }
                static final class OrderResource {
                }
            """;

    private final String source;

    private JavaExample(String typeName, String source) {
        super(URI.create("string:///" + typeName + Kind.SOURCE.extension), Kind.SOURCE);
        this.source = source;
    }

    /** Compiles {@code block} against the test class path of the module that runs it; fails showing why not. */
    public static void assertCompiles(MarkdownBlock block) throws IOException {
        JavaExample example = of(block);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path out = Files.createTempDirectory("sluice-doc-example");
        boolean compiled = compiler.getTask(null, null, diagnostics, List.of("-proc:none", "-d", out.toString(),
                "-classpath", testClassPath()), null, List.of(example)).call();
        assertThat(compiled).as(block.where() + ":\n" + example.source + "\n" + diagnostics.getDiagnostics())
                .isTrue();
    }

    /** Surefire's test class path (java.class.path is its booter jar when it forks with a manifest-only jar). */
    private static String testClassPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    static JavaExample of(MarkdownBlock block) {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        for (String line : block.text().split("\n", -1)) {
            (line.startsWith("import ") ? imports : body).append(line).append('\n');
        }
        String packageName = "docs." + block.where().replaceAll("[^A-Za-z0-9]", "_").toLowerCase();
        Matcher type = TYPE.matcher(body);
        if (type.find()) {
            return new JavaExample(type.group(3), "package " + packageName + ";\n" + imports + body);
        }
        return new JavaExample("Example", "package " + packageName + ";\n" + imports
                + "class Example {\n" + GIVEN + "    void example() throws Exception {\n" + body + "    }\n}\n");
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
    }
}
