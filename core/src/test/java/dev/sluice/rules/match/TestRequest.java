package dev.sluice.rules.match;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A {@link RequestView} built by hand for tests (of this module and of the modules using its test-jar). */
public final class TestRequest implements RequestView {

    private String method = "GET";
    private String rawPath = "/";
    private String host = "api.example.com";
    private String remoteAddress = "198.51.100.7";
    private String principal;
    private Method resourceMethod;
    private final Map<String, List<String>> headers = new HashMap<>();
    private final Map<String, String> cookies = new HashMap<>();
    private final Map<String, String> query = new HashMap<>();
    private final Map<String, String> pathParameters = new HashMap<>();

    public static TestRequest get(String path) {
        return new TestRequest().path(path);
    }

    public TestRequest method(String value) {
        method = value;
        return this;
    }

    public TestRequest path(String value) {
        rawPath = value;
        return this;
    }

    public TestRequest host(String value) {
        host = value;
        return this;
    }

    public TestRequest from(String address) {
        remoteAddress = address;
        return this;
    }

    public TestRequest header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
        return this;
    }

    public TestRequest cookie(String name, String value) {
        cookies.put(name, value);
        return this;
    }

    public TestRequest query(String name, String value) {
        query.put(name, value);
        return this;
    }

    public TestRequest principal(String name) {
        principal = name;
        return this;
    }

    public TestRequest pathParameter(String name, String value) {
        pathParameters.put(name, value);
        return this;
    }

    public TestRequest routedTo(Method javaMethod) {
        resourceMethod = javaMethod;
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String rawPath() {
        return rawPath;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    @Override
    public String cookie(String name) {
        return cookies.get(name);
    }

    @Override
    public String queryParameter(String name) {
        return query.get(name);
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String principalName() {
        return principal;
    }

    @Override
    public String pathParameter(String name) {
        return pathParameters.get(name);
    }

    @Override
    public Method resourceMethod() {
        return resourceMethod;
    }
}
