package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;

/**
 * A closed-loop HTTP/1.1 load on one thread, like {@code wrk -t1}: keep-alive connections spread evenly over one or
 * more servers, each sending its next request as soon as the previous answer is in, the requests taken in turn from
 * a list. A phase ends after a time or a number of answers, whichever comes first, then waits for the answers still in
 * flight, uncounted, so that the next phase starts on idle connections. Not thread-safe.
 */
final class ClosedLoopLoad implements AutoCloseable {

    private final Selector selector;
    private final List<KeepAliveConnection> open = new ArrayList<>();
    private final byte[][] requests;
    private int next;

    /** Opens {@code connections} connections, spread over {@code servers} in turn, to send {@code requests}. */
    ClosedLoopLoad(List<InetSocketAddress> servers, int connections, byte[][] requests) throws IOException {
        this.selector = Selector.open();
        this.requests = requests;
        try {
            for (int c = 0; c < connections; c++) {
                open.add(KeepAliveConnection.open(servers.get(c % servers.size()), selector));
            }
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** What one phase counted: answers, those with status 200, and the time they took. */
    record Phase(long answered, long ok, long nanos) {

        /** The answers that were not 200. */
        long notOk() {
            return answered - ok;
        }

        /** Answers per second. */
        double rate() {
            return answered * 1e9 / nanos;
        }
    }

    /** Keeps every connection busy until {@code nanos} passed or {@code limit} answers came. */
    Phase phase(long nanos, long limit) throws IOException {
        long start = System.nanoTime();
        long end = start + nanos;
        long answered = 0;
        long ok = 0;
        for (KeepAliveConnection connection : open) {
            connection.send(requests[next++ % requests.length]);
        }
        int inFlight = open.size();
        long stoppedAt = 0;
        while (inFlight > 0) {
            selector.select(100);
            long now = System.nanoTime();
            boolean counting = stoppedAt == 0;
            for (SelectionKey key : selector.selectedKeys()) {
                KeepAliveConnection connection = (KeepAliveConnection) key.attachment();
                int status = connection.receive();
                if (status == 0) {
                    continue;
                }
                if (counting) {
                    answered++;
                    ok += status == 200 ? 1 : 0;
                }
                if (stoppedAt == 0 && (now >= end || answered >= limit)) {
                    stoppedAt = now;
                }
                if (stoppedAt == 0) {
                    connection.send(requests[next++ % requests.length]);
                } else {
                    inFlight--;
                }
            }
            selector.selectedKeys().clear();
        }
        return new Phase(answered, ok, stoppedAt - start);
    }

    /** A measured phase, when it started ({@link System#nanoTime()}), and the servers' CPU per answer during it. */
    record Measured(Phase phase, long startedAt, double cpuMicrosPerAnswer) {
    }

    /**
     * A warm-up of {@code warmupNanos}, then a phase of {@code nanos} (at most {@code limit} answers) measured with the
     * CPU time {@code servers} used meanwhile.
     */
    Measured warmThenMeasure(long warmupNanos, long nanos, long limit, List<Process> servers) throws IOException {
        phase(warmupNanos, Long.MAX_VALUE);
        List<ProcessHandle> handles = servers.stream().map(Process::toHandle).toList();
        long cpuBefore = OpenLoopLoad.cpuNanos(handles);
        long startedAt = System.nanoTime();
        Phase measured = phase(nanos, limit);
        return new Measured(measured, startedAt, (OpenLoopLoad.cpuNanos(handles) - cpuBefore) / 1e3
                / measured.answered());
    }

    @Override
    public void close() throws IOException {
        for (KeepAliveConnection connection : open) {
            connection.close();
        }
        selector.close();
    }
}
