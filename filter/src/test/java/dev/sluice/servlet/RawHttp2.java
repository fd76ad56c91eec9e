package dev.sluice.servlet;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;

/**
 * HTTP/2 written by hand over a socket, with prior knowledge (cleartext, no upgrade), for header fields a client
 * would not choose: an {@code :authority} naming any host, none at all, a {@code host} field beside it. One request
 * per connection; the response's header fields are decoded with Jetty's HPACK decoder, the body read to its end. For
 * a server started with {@link #SPOKEN} ({@link JettyServer#start(int, Function, ContextHandler...)}). Public for
 * other modules' tests (through this module's test-jar).
 */
public final class RawHttp2 {

    /** HTTP/2 over cleartext, for a {@link JettyServer} to speak beside HTTP/1.1. */
    public static final Function<HttpConfiguration, ConnectionFactory> SPOKEN = HTTP2CServerConnectionFactory::new;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int CONTINUATION = 0x9;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;
    private static final int STREAM = 1;
    private static final int TIMEOUT_MILLIS = 30_000;

    private RawHttp2() {
    }

    /**
     * Sends a request of the header fields {@code fields} (names and values in turn, pseudo-header fields such as
     * {@code :method} first, names lower case) on stream 1 to {@code server}, and reads its response:
     * {@link RawHttp.Response#NO_RESPONSE} when the server reset the stream or the connection instead.
     */
    public static RawHttp.Response send(JettyServer server, String... fields) throws IOException {
        URI base = server.uri("/");
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(PREFACE);
            writeFrame(out, SETTINGS, 0, 0, new byte[0]);
            writeFrame(out, HEADERS, END_STREAM | END_HEADERS, STREAM, headerBlock(fields));
            out.flush();
            return read(new DataInputStream(socket.getInputStream()), out);
        }
    }

    /** A GET of {@code path} with {@code :authority} {@code authority}, and {@code more} header fields. */
    public static RawHttp.Response get(JettyServer server, String path, String authority, String... more)
            throws IOException {
        String[] fields = new String[8 + more.length];
        String[] pseudo = {":method", "GET", ":scheme", "http", ":authority", authority, ":path", path};
        System.arraycopy(pseudo, 0, fields, 0, pseudo.length);
        System.arraycopy(more, 0, fields, pseudo.length, more.length);
        return send(server, fields);
    }

    /** Each field as an HPACK literal without indexing, its name and value literal strings without Huffman coding. */
    private static byte[] headerBlock(String... fields) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        for (int i = 0; i + 1 < fields.length; i += 2) {
            block.write(0x00);
            for (String text : new String[] {fields[i], fields[i + 1]}) {
                byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
                writeLength(block, bytes.length);
                block.writeBytes(bytes);
            }
        }
        return block.toByteArray();
    }

    /** An HPACK integer with a 7-bit prefix (the string length, Huffman bit clear). */
    private static void writeLength(ByteArrayOutputStream out, int length) {
        if (length < 127) {
            out.write(length);
            return;
        }
        out.write(127);
        int rest = length - 127;
        while (rest >= 128) {
            out.write((rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        out.write(rest);
    }

    private static void writeFrame(OutputStream out, int type, int flags, int stream, byte[] payload)
            throws IOException {
        out.write(new byte[] {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
            (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
            (byte) stream});
        out.write(payload);
        out.flush();
    }

    private static RawHttp.Response read(DataInputStream in, OutputStream out) throws IOException {
        HpackDecoder decoder = new HpackDecoder(1 << 20, System::nanoTime);
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        MetaData.Response response = null;
        try {
            while (true) {
                byte[] head = new byte[9];
                in.readFully(head);
                int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
                int type = head[3] & 0xff;
                int flags = head[4] & 0xff;
                int stream = (head[5] & 0x7f) << 24 | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8
                        | head[8] & 0xff;
                byte[] payload = new byte[length];
                in.readFully(payload);
                if (type == SETTINGS && (flags & ACK) == 0) {
                    writeFrame(out, SETTINGS, ACK, 0, new byte[0]);
                } else if (type == PING && (flags & ACK) == 0) {
                    writeFrame(out, PING, ACK, 0, payload);
                } else if (type == GOAWAY || type == RST_STREAM && stream == STREAM) {
                    return noResponse(response, body);
                } else if (stream == STREAM && (type == HEADERS || type == CONTINUATION)) {
                    block.write(fragment(type, flags, payload));
                    if ((flags & END_HEADERS) != 0) {
                        MetaData metaData = decoder.decode(ByteBuffer.wrap(block.toByteArray()));
                        block.reset();
                        if (metaData instanceof MetaData.Response decoded && decoded.getStatus() >= 200) {
                            response = decoded;
                        }
                    }
                    if ((flags & END_STREAM) != 0) {
                        return response(response, body);
                    }
                } else if (stream == STREAM && type == DATA) {
                    body.write(fragment(type, flags, payload));
                    if ((flags & END_STREAM) != 0) {
                        return response(response, body);
                    }
                }
            }
        } catch (EOFException closed) {
            return noResponse(response, body);
        } catch (HpackException.SessionException | HpackException.StreamException e) {
            throw new IOException("the response's header fields cannot be decoded", e);
        }
    }

    /** The header block fragment or data of a frame, without its padding and priority fields. */
    private static byte[] fragment(int type, int flags, byte[] payload) {
        int start = 0;
        int end = payload.length;
        if ((flags & PADDED) != 0) {
            start = 1;
            end -= payload[0] & 0xff;
        }
        if (type == HEADERS && (flags & PRIORITY) != 0) {
            start += 5;
        }
        byte[] fragment = new byte[end - start];
        System.arraycopy(payload, start, fragment, 0, fragment.length);
        return fragment;
    }

    private static RawHttp.Response noResponse(MetaData.Response response, ByteArrayOutputStream body) {
        return response == null ? new RawHttp.Response(RawHttp.Response.NO_RESPONSE, Map.of(), "")
                : response(response, body);
    }

    private static RawHttp.Response response(MetaData.Response response, ByteArrayOutputStream body) {
        if (response == null) {
            return new RawHttp.Response(RawHttp.Response.NO_RESPONSE, Map.of(), body.toString(StandardCharsets.UTF_8));
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (HttpField field : response.getHttpFields()) {
            headers.putIfAbsent(field.getName().toLowerCase(Locale.ROOT), field.getValue());
        }
        return new RawHttp.Response(response.getStatus(), headers, body.toString(StandardCharsets.UTF_8));
    }
}
