package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One non-blocking HTTP/1.1 keep-alive connection with at most one request in flight, for load generators that drive
 * many of them from one thread: far less CPU per request than a general client, so the generator leaves the cores to
 * the server it measures. Not thread-safe.
 */
final class KeepAliveConnection {

    private static final byte[] HEADER_END = {'\r', '\n', '\r', '\n'};
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);

    private KeepAliveConnection(SocketChannel channel) {
        this.channel = channel;
    }

    /** Connects to {@code address} and registers the connection with {@code selector} for reading, as attachment. */
    static KeepAliveConnection open(InetSocketAddress address, Selector selector) throws IOException {
        SocketChannel channel = SocketChannel.open(address);
        KeepAliveConnection connection = new KeepAliveConnection(channel);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true).configureBlocking(false)
                .register(selector, SelectionKey.OP_READ, connection);
        return connection;
    }

    /** The bytes of a request without a body. */
    static byte[] request(String method, String pathAndQuery, String extraHeaders) {
        return (method + " " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (method.equals("GET") ? "" : "Content-Length: 0\r\n") + extraHeaders + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    void send(byte[] request) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(request);
        while (out.hasRemaining()) {
            channel.write(out);
        }
    }

    /** Reads what arrived; the status of the answer once it is complete, else 0. */
    int receive() throws IOException {
        if (channel.read(in) < 0) {
            throw new IOException("the server closed a connection");
        }
        byte[] bytes = in.array();
        int headerEnd = indexOf(bytes, 0, in.position(), HEADER_END);
        if (headerEnd < 0) {
            return 0;
        }
        String header = new String(bytes, 0, headerEnd, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        int bodyStart = headerEnd + HEADER_END.length;
        int length = header.indexOf("\r\ncontent-length:");
        int end;
        if (length >= 0) {
            int valueEnd = header.indexOf('\r', length + 2);
            end = bodyStart + Integer.parseInt(header.substring(length + 17, valueEnd < 0 ? header.length()
                    : valueEnd).trim());
        } else if (header.contains("\r\ntransfer-encoding: chunked")) {
            int last = indexOf(bytes, bodyStart, in.position(), LAST_CHUNK);
            end = last < 0 ? Integer.MAX_VALUE : last + LAST_CHUNK.length;
        } else {
            throw new IOException("an answer without a length: " + header);
        }
        if (in.position() < end) {
            return 0;
        }
        if (in.position() > end) {
            throw new IOException("more than one answer to one request");
        }
        in.clear();
        return Integer.parseInt(header.substring(9, 12));
    }

    void close() throws IOException {
        channel.close();
    }

    private static int indexOf(byte[] bytes, int from, int to, byte[] wanted) {
        for (int i = from; i <= to - wanted.length; i++) {
            if (Arrays.equals(bytes, i, i + wanted.length, wanted, 0, wanted.length)) {
                return i;
            }
        }
        return -1;
    }
}
