package dev.sluice.servlet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 written by hand over a socket, for requests {@link java.net.http.HttpClient} refuses to send: {@code //},
 * {@code ..} or {@code ;} left as they are in the path, CR or LF inside a header value, bytes outside ASCII. Each
 * request is sent on a new connection with {@code Connection: close} and read to the end. Public for other modules'
 * tests (through this module's test-jar).
 */
public final class RawHttp {

    private static final int TIMEOUT_MILLIS = 30_000;

    private RawHttp() {
    }

    /**
     * What the server answered: status, headers (names lower case, first value kept) and body; {@code status} is
     * {@link #NO_RESPONSE} when the server closed the connection without answering.
     */
    public record Response(int status, Map<String, String> headers, String body) {

        /** The status of a connection closed, or reset, without a response. */
        public static final int NO_RESPONSE = -1;

        /** The first value of header {@code name}, or null. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Sends {@code GET target} to {@code server} with a {@code Host} header and the given header lines (each
     * {@code "Name: value"}, written byte for byte as ISO-8859-1, one byte per char).
     */
    public static Response get(JettyServer server, String target, String... headerLines) throws IOException {
        URI base = server.uri("/");
        StringBuilder request = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(base.getHost()).append(':').append(base.getPort()).append("\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        request.append("Connection: close\r\n\r\n");
        return send(base, request.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /**
     * Writes {@code request} as it is and reads the response. A server may answer and close before it has read a
     * large request: a failed write is then not an error, the response (or its absence) is what counts.
     */
    public static Response send(URI base, byte[] request) throws IOException {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            try {
                OutputStream out = socket.getOutputStream();
                out.write(request);
                out.flush();
            } catch (SocketException closedWhileWriting) {
                // The server answered early and closed; read what it sent.
            }
            return parse(readAll(socket.getInputStream()));
        }
    }

    private static byte[] readAll(InputStream in) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                bytes.write(buffer, 0, read);
            }
        } catch (IOException reset) {
            // A reset after the response (or instead of it): keep what arrived.
        }
        return bytes.toByteArray();
    }

    private static Response parse(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int headEnd = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.1 ") || headEnd < 0) {
            return new Response(Response.NO_RESPONSE, Map.of(), text);
        }
        String[] lines = text.substring(0, headEnd).split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(headEnd + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        int status = Integer.parseInt(lines[0].substring(9, 12));
        return new Response(status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1),
                StandardCharsets.UTF_8));
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int position = 0;
        while (true) {
            int lineEnd = chunked.indexOf("\r\n", position);
            int size = Integer.parseInt(chunked.substring(position, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                return body.toString();
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            position = lineEnd + 2 + size + 2;
        }
    }
}
