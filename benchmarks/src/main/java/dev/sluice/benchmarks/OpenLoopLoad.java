package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed-rate (open-loop) HTTP/1.1 load: request {@code i} is due at {@code start + i / rate} and goes out on the
 * first idle keep-alive connection once due; when every connection is busy it waits for one, and its latency still
 * counts from when it was due, so a server that stalls shows in the figures instead of slowing the load down (no
 * coordinated omission, up to {@code connections} requests in flight).
 *
 * <p>Two threads and {@link KeepAliveConnection}s keep the generator's own CPU per request small (on a machine it
 * shares with the server, a heavier client measures mostly itself): the caller's thread parks until each request is
 * due and sends it; a receiver thread waits in a selector for the answers and times each as it arrives, so neither
 * wait blurs the other's timing.
 *
 * <p>The connections are opened once and kept for every run, so a warm-up warms them too; they are used in turn
 * (the one idle longest goes next), so none sits idle long enough for the server to close it. Not thread-safe.
 */
final class OpenLoopLoad implements AutoCloseable {

    private final byte[][] requests;
    private final Selector selector;
    private final List<KeepAliveConnection> open = new ArrayList<>();

    /**
     * Opens {@code connections} connections to {@code address}; request {@code i} of a run is
     * {@code requests[i % requests.length]}.
     */
    OpenLoopLoad(InetSocketAddress address, byte[][] requests, int connections) throws IOException {
        this.requests = requests;
        this.selector = Selector.open();
        try {
            for (int c = 0; c < connections; c++) {
                open.add(KeepAliveConnection.open(address, selector));
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /**
     * What a run saw, per request in schedule order: latency from its due time and status; and the CPU time per request
     * of this process (the load generator) and of the server's processes that were named.
     */
    record Run(long[] latencyNanos, int[] statuses, double seconds, double loadCpuMicros, double serverCpuMicros) {

        /** "CPU per request: load generator ... µs, server ... µs", the server's when its processes were named. */
        String cpuPerRequest() {
            return String.format(Locale.ROOT, "CPU per request: load generator %.0f µs, server %s", loadCpuMicros,
                    Double.isNaN(serverCpuMicros) ? "not measured (no --server-pid)"
                            : String.format(Locale.ROOT, "%.0f µs", serverCpuMicros));
        }
    }

    /** The process {@code pid} names, as a list for {@link #run}; fails naming the pid when there is none. */
    static List<ProcessHandle> process(String pid) {
        return List.of(ProcessHandle.of(Long.parseLong(pid.trim())).orElseThrow(() -> new IllegalArgumentException(
                "no process " + pid)));
    }

    /** The value at {@code percent} of {@code sorted} nanoseconds, in milliseconds (nearest rank). */
    static double percentileMillis(long[] sorted, double percent) {
        int index = (int) Math.ceil(percent / 100 * sorted.length) - 1;
        return sorted.length == 0 ? 0 : sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    /**
     * Sends {@code rate} requests per second for {@code seconds} and waits for every answer, timing the CPU of the
     * {@code server} processes (none: {@code NaN}).
     */
    Run run(int rate, int seconds, List<ProcessHandle> server) throws IOException, InterruptedException {
        int count = Math.multiplyExact(rate, seconds);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long[] latencies = new long[count];
        int[] statuses = new int[count];
        LinkedBlockingDeque<KeepAliveConnection> idle = new LinkedBlockingDeque<>(open);
        AtomicIntegerArray inFlight = new AtomicIntegerArray(open.size());
        long loadCpu = cpuNanos(List.of(ProcessHandle.current()));
        long serverCpu = cpuNanos(server);
        long start = System.nanoTime();
        AtomicReference<IOException> failure = new AtomicReference<>();
        Thread receiver = new Thread(() -> {
            try {
                for (int answered = 0; answered < count; ) {
                    selector.select();
                    long received = System.nanoTime();
                    for (SelectionKey key : selector.selectedKeys()) {
                        KeepAliveConnection connection = (KeepAliveConnection) key.attachment();
                        int status = connection.receive();
                        if (status != 0) {
                            int request = inFlight.get(open.indexOf(connection));
                            latencies[request] = received - (start + request * interval);
                            statuses[request] = status;
                            answered++;
                            idle.offer(connection);
                        }
                    }
                    selector.selectedKeys().clear();
                }
            } catch (IOException e) {
                failure.set(e);
            }
        }, "answers");
        receiver.setDaemon(true);
        receiver.start();
        for (int request = 0; request < count && failure.get() == null; request++) {
            long wait;
            while ((wait = start + request * interval - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            KeepAliveConnection connection = idle.poll(10, TimeUnit.SECONDS);
            if (connection == null) {
                throw new IOException("no answer from the server for 10 s", failure.get());
            }
            inFlight.set(open.indexOf(connection), request);
            connection.send(requests[request % requests.length]);
        }
        receiver.join();
        if (failure.get() != null) {
            throw new IOException("reading the answers failed", failure.get());
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return new Run(latencies, statuses, elapsed,
                (cpuNanos(List.of(ProcessHandle.current())) - loadCpu) / 1e3 / count,
                server.isEmpty() ? Double.NaN : (cpuNanos(server) - serverCpu) / 1e3 / count);
    }

    @Override
    public void close() throws IOException {
        for (KeepAliveConnection connection : open) {
            connection.close();
        }
        selector.close();
    }

    /** The CPU time (user and system) the processes have used so far. */
    static long cpuNanos(List<ProcessHandle> processes) {
        long nanos = 0;
        for (ProcessHandle process : processes) {
            nanos += process.info().totalCpuDuration().orElseThrow(
                    () -> new IllegalStateException("this system does not tell a process's CPU time")).toNanos();
        }
        return nanos;
    }
}
