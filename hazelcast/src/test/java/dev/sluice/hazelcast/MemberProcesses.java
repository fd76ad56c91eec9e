package dev.sluice.hazelcast;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A cluster of {@link MemberProcess}es: real members in JVMs of their own on loopback, which a test can kill without
 * shutdown ({@code SIGKILL}), freeze ({@code SIGSTOP}), restart on the same port, or stop cleanly. Each member's
 * output lines are collected; its errors go to a file in {@code logs}, quoted when it fails. {@link #close()} kills
 * whatever is left.
 */
final class MemberProcesses implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final String clusterName = ClusterSupport.newClusterName();
    private final List<Integer> ports = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    private final Path logs;
    private final boolean apart;
    private final AtomicInteger commandIds = new AtomicInteger();

    /** Starts {@code size} members, each with {@code options} (see {@link MemberProcess}), and waits until ready. */
    MemberProcesses(int size, Path logs, List<String> options) {
        this(size, logs, member -> options, false);
    }

    /** Starts {@code size} members, member {@code i} with {@code options.apply(i)}, and waits until ready. */
    MemberProcesses(int size, Path logs, IntFunction<List<String>> options) {
        this(size, logs, options, false);
    }

    /**
     * Starts {@code size} members of one cluster name that do not know each other's address: a cluster of one each,
     * as after a split, until told to {@code join}.
     */
    static MemberProcesses apart(int size, Path logs) {
        return new MemberProcesses(size, logs, member -> List.of(), true);
    }

    private MemberProcesses(int size, Path logs, IntFunction<List<String>> options, boolean apart) {
        this.logs = logs;
        this.apart = apart;
        for (int i = 0; i < size; i++) {
            ports.add(ClusterSupport.freePort());
        }
        try {
            for (int i = 0; i < size; i++) {
                members.add(start(i, options.apply(i)));
            }
            for (int i = 0; i < size; i++) {
                awaitLine(i, "ready", START_TIMEOUT);
            }
        } catch (RuntimeException | AssertionError e) {
            close();
            throw e;
        }
    }

    String clusterName() {
        return clusterName;
    }

    int port(int member) {
        return ports.get(member);
    }

    /** Every member's address, for a client. */
    String[] addresses() {
        return ports.stream().map(port -> ClusterSupport.LOOPBACK + ":" + port).toArray(String[]::new);
    }

    /** Kills member {@code i} at once, without shutdown, and waits for its process to end. */
    void kill(int member) {
        Process process = members.get(member).process;
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("member " + member + " still runs after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Stops member {@code i} where it stands ({@code SIGSTOP}): it keeps its connections open and answers nothing,
     * as a member in a long pause does, until the others find it gone. Only {@link #kill} ends it then.
     */
    void freeze(int member) {
        long pid = members.get(member).process.pid();
        try {
            Process stop = new ProcessBuilder("kill", "-STOP", String.valueOf(pid)).inheritIO().start();
            if (!stop.waitFor(30, TimeUnit.SECONDS) || stop.exitValue() != 0) {
                throw new AssertionError("kill -STOP " + pid + " failed");
            }
            Path threads = Path.of("/proc", String.valueOf(pid), "task");
            ClusterSupport.await(() -> stopped(threads), Duration.ofSeconds(30), "member " + member + " stopped");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Whether every thread in {@code threads} (a process's {@code /proc/<pid>/task}) is stopped. */
    private static boolean stopped(Path threads) {
        try (Stream<Path> each = Files.list(threads)) {
            return each.allMatch(thread -> {
                try {
                    String stat = Files.readString(thread.resolve("stat"));
                    // The state follows the command name's closing parenthesis.
                    return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
                } catch (IOException gone) {
                    return true;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts every member again (killing any still running), on its own port, and waits until all are ready. */
    void restartAll(List<String> options) {
        for (int i = 0; i < members.size(); i++) {
            kill(i);
            members.set(i, start(i, options));
        }
        for (int i = 0; i < members.size(); i++) {
            awaitLine(i, "ready", START_TIMEOUT);
        }
    }

    /**
     * Waits until every member finds the cluster safe: "ready" only means every member joined, while partitions may
     * still be migrating to the members that joined last, and a call to such a partition waits for the migration.
     */
    void awaitSafe() {
        ClusterSupport.await(() -> IntStream.range(0, members.size()).allMatch(i -> ask(i, "safe").equals("true")),
                START_TIMEOUT, "every member to find the cluster safe");
    }

    /** Sends member {@code i} a command (see {@link MemberProcess}) and returns its answer. */
    String ask(int member, String command) {
        int id = commandIds.incrementAndGet();
        try {
            OutputStream in = members.get(member).process.getOutputStream();
            in.write((id + " " + command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("member " + member + " takes no more commands", e);
        }
        return awaitLine(member, id + " ", Duration.ofSeconds(60));
    }

    /** Whether member {@code i} has printed the line {@code line}. */
    boolean printed(int member, String line) {
        return members.get(member).lines.contains(line);
    }

    /** Waits until member {@code i} has printed a line starting with {@code prefix}; returns the rest of it. */
    String awaitLine(int member, String prefix, Duration timeout) {
        Member m = members.get(member);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String line : m.lines) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length());
                }
            }
            if (!m.process.isAlive()) {
                throw new AssertionError("member " + member + " exited with " + m.process.exitValue()
                        + " before printing " + prefix + "; stderr:\n" + errors(member));
            }
            sleep(Duration.ofMillis(50));
        }
        throw new AssertionError("member " + member + " printed no " + prefix + " within " + timeout + "; stderr:\n"
                + errors(member));
    }

    /** Closes every live member's standard input (it leaves the cluster cleanly), then kills any still running. */
    @Override
    public void close() {
        for (Member m : members) {
            try {
                m.process.getOutputStream().close();
            } catch (IOException e) {
                // Already gone.
            }
        }
        for (Member m : members) {
            try {
                if (!m.process.waitFor(20, TimeUnit.SECONDS)) {
                    m.process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                m.process.destroyForcibly();
            }
        }
    }

    private Member start(int member, List<String> options) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                MemberProcess.class.getName(),
                clusterName, String.valueOf(apart ? 1 : ports.size()), String.valueOf(ports.get(member))));
        command.addAll(options);
        (apart ? List.of(ports.get(member)) : ports).forEach(port -> command.add(String.valueOf(port)));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve("member-" + member + ".err").toFile()))
                    .start();
            Member started = new Member(process);
            Thread reader = new Thread(started::collect, "member-" + member + "-output");
            reader.setDaemon(true);
            reader.start();
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String errors(int member) {
        try {
            String text = Files.readString(logs.resolve("member-" + member + ".err"));
            return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A running member process and the lines it has printed. */
    private static final class Member {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();

        Member(Process process) {
            this.process = process;
        }

        void collect() {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                out.lines().forEach(lines::add);
            } catch (IOException | UncheckedIOException e) {
                // The process died; what it printed is kept.
            }
        }
    }
}
