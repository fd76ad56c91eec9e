package dev.sluice.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Starts the servers and members of the HTTP runs in JVMs of their own, on this JVM's class path (or an executable
 * jar's), their output echoed on this one's with the class's or jar's name in front; and stops them, last started
 * first. Not thread-safe.
 */
final class ServerProcesses implements AutoCloseable {

    /**
     * For the JVMs with a Hazelcast member: the access to JDK internals Hazelcast asks for at start, and no Hazelcast
     * INFO lines burying the figures (Sluice's warnings, through java.util.logging, still show).
     */
    static final List<String> HAZELCAST_JVM = List.of("-Dhazelcast.logging.type=none",
            "--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private final List<Process> started = new ArrayList<>();

    /** The processes started so far, in order. */
    List<Process> started() {
        return List.copyOf(started);
    }

    /**
     * Starts {@code main} with {@code args} in a JVM with options {@code jvm}; when {@code ready} is given, returns
     * once it printed a line starting with that (at most 180 s).
     */
    Process start(List<String> jvm, Class<?> main, List<String> args, @Nullable String ready)
            throws IOException, InterruptedException {
        Launched launched = launch(jvm, main, args, ready);
        if (ready != null) {
            launched.awaitReady();
        }
        return launched.process();
    }

    /**
     * Starts {@code main} as {@link #start} does, without waiting: for servers that wait for each other before they
     * print {@code ready}.
     */
    Launched launch(List<String> jvm, Class<?> main, List<String> args, @Nullable String ready) throws IOException {
        List<String> program = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        program.addAll(args);
        return launch(jvm, program, main.getSimpleName(), args, ready);
    }

    /**
     * Starts the executable jar {@code jar} with {@code args} in a JVM with options {@code jvm}, as {@link #start}
     * starts a class: an application with a class path of its own, such as a Spring Boot application.
     */
    Process startJar(List<String> jvm, Path jar, List<String> args, String ready)
            throws IOException, InterruptedException {
        List<String> program = new ArrayList<>(List.of("-jar", jar.toString()));
        program.addAll(args);
        Launched launched = launch(jvm, program, String.valueOf(jar.getFileName()), args, ready);
        launched.awaitReady();
        return launched.process();
    }

    /** Starts {@code java} with {@code jvm} and {@code program}, echoing its output as {@code name}'s. */
    private Launched launch(List<String> jvm, List<String> program, String name, List<String> args,
                            @Nullable String ready) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvm);
        command.addAll(program);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(process);
        CountDownLatch printed = new CountDownLatch(1);
        Thread echo = new Thread(() -> {
            try (BufferedReader output = process.inputReader(StandardCharsets.UTF_8)) {
                for (String line = output.readLine(); line != null; line = output.readLine()) {
                    System.out.println("  [" + name + "] " + line);
                    if (ready != null && line.startsWith(ready)) {
                        printed.countDown();
                    }
                }
            } catch (IOException ended) {
                // The process is gone: the wait for it notices.
            }
        });
        echo.setDaemon(true);
        echo.start();
        return new Launched(process, printed, name + " " + args);
    }

    /** A process started, and the latch its first line starting with the ready text opens. */
    record Launched(Process process, CountDownLatch printed, String name) {

        /** Waits until the process said it is ready, at most 180 s; fails if it ended or took longer. */
        void awaitReady() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!printed.await(1, TimeUnit.SECONDS)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " did not start serving");
                }
            }
        }
    }

    /** Stops every process, the last started first: a server before the member it joined. */
    @Override
    public void close() throws InterruptedException {
        for (int i = started.size() - 1; i >= 0; i--) {
            Process process = started.get(i);
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
