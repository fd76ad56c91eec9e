package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import dev.sluice.store.CountingStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code store} init-param on a real Jetty: store providers found by name or class name, or clearly not. */
class StoreProviderFilterTest {

    private static final String PER_IP = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private FilterHolder filter;

    /** Starts Jetty with the filter at {@code /shop} from {@code initParams}, finding providers in {@code loader}. */
    private JettyServer start(Map<String, String> initParams, ClassLoader loader) throws Exception {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), PER_IP);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/shop");
        context.setClassLoader(loader);
        filter = new FilterHolder(RateLimitFilter.class);
        filter.setName("sluice");
        filter.setInitParameter("rules", "file:" + rules);
        initParams.forEach(filter::setInitParameter);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new EchoServlet()), "/*");
        JettyServer server = JettyServer.start(20, context);
        servers.add(server);
        return server;
    }

    private JettyServer start(Map<String, String> initParams) throws Exception {
        return start(initParams, getClass().getClassLoader());
    }

    /** Asserts that starting fails with the filter's ServletException carrying {@code message}. */
    private static void assertInitFails(ThrowingCallable start, String message) {
        assertThatThrownBy(start).satisfies(thrown -> {
            List<Throwable> chain = new ArrayList<>();
            for (Throwable cause = thrown; cause != null && !chain.contains(cause); cause = cause.getCause()) {
                chain.add(cause);
            }
            assertThat(chain).anySatisfy(cause -> assertThat(cause).isInstanceOf(ServletException.class)
                    .hasMessage("Sluice filter 'sluice' cannot start: " + message));
        });
    }

    @Test
    void init_storeHazelcastWithoutTheModule_failsNamingTheArtifact() {
        ClassLoader withoutProviders = new WithoutStoreProviders(getClass().getClassLoader());

        assertInitFails(() -> start(Map.of("store", "hazelcast"), withoutProviders),
                "init-param 'store': the store 'hazelcast' needs dev.sluice:sluice-hazelcast on the class path (with"
                        + " the Hazelcast it runs on, com.hazelcast:hazelcast)");
        assertInitFails(() -> start(Map.of("store", "hazelcast-client"), withoutProviders),
                "init-param 'store': the store 'hazelcast-client' needs dev.sluice:sluice-hazelcast on the class path"
                        + " (with the Hazelcast it runs on, com.hazelcast:hazelcast)");
    }

    @Test
    void init_unknownStoreName_namesTheStoresOnTheClassPath() {
        assertInitFails(() -> start(Map.of("store", "redis")), "init-param 'store': expected local, hazelcast,"
                + " hazelcast-client (the stores on the class path) or the class name of a"
                + " dev.sluice.store.CounterStoreProvider, got 'redis'");
    }

    @Test
    void init_classNameOfNoProvider_isRefused() {
        assertInitFails(() -> start(Map.of("store", "com.example.MissingProvider")),
                "init-param 'store': no store provider class com.example.MissingProvider on the class path");
        assertInitFails(() -> start(Map.of("store", "java.lang.String")),
                "init-param 'store': java.lang.String is not a dev.sluice.store.CounterStoreProvider");
        assertInitFails(() -> start(Map.of("store", NoPublicConstructor.class.getName())),
                "init-param 'store': cannot create " + NoPublicConstructor.class.getName() + ": a store provider"
                        + " needs to be a public class with a public no-argument constructor");
    }

    @Test
    void init_misspeltInitParam_failsNamingTheNearestKnownInitParam() {
        assertInitFails(() -> start(Map.of("rules-file", "classpath:sluice-rules.json")),
                "init-param 'rules-file' is not a Sluice filter init-param; did you mean 'rules'? Known: rules,"
                        + " rules-reload-interval, store, failure-policy, store-timeout, header-style, trusted-proxies,"
                        + " client-address-header, ipv6-prefix, max-keys, rejection-cache, namespace, metrics");
    }

    @Test
    void init_hazelcastInitParamOnTheLocalStore_isRefusedNamingItsStores() {
        assertInitFails(() -> start(Map.of("hazelcast-members", "127.0.0.1:5701")),
                "init-param 'hazelcast-members' belongs to store 'hazelcast' or 'hazelcast-client', but init-param"
                        + " 'store' is 'local'");
    }

    @Test
    void init_misspeltHazelcastInitParam_isRefusedNamingTheProvidersNearest() {
        assertInitFails(() -> start(Map.of("store", "hazelcast", "hazelcast-member", "127.0.0.1:5701")),
                "init-param 'hazelcast-member' is not a Sluice filter init-param nor one of store 'hazelcast'; did"
                        + " you mean 'hazelcast-members'? Known: rules, rules-reload-interval, store, failure-policy,"
                        + " store-timeout, header-style, trusted-proxies, client-address-header, ipv6-prefix, max-keys,"
                        + " rejection-cache, namespace, metrics, hazelcast-config, hazelcast-cluster-name,"
                        + " hazelcast-members, hazelcast-port, hazelcast-interface, hazelcast-incompatible-members,"
                        + " hazelcast-batching, hazelcast-leasing, hazelcast-lease-lifetime, hazelcast-max-slice,"
                        + " hazelcast-hot-key-rate, hazelcast-sync-interval, hazelcast-sync-budget,"
                        + " hazelcast-max-synced-keys, hazelcast-client-grace, hazelcast-key-secret");
    }

    @Test
    void init_providerClassName_opensItsStoreWithItsInitParamsUnderTheFailurePolicy() throws Exception {
        JettyServer server = start(Map.of("store", RecordingProvider.class.getName(), "recording-max-keys", "10",
                "failure-policy", "reject"));
        RateLimitFilter started = (RateLimitFilter) filter.getFilter();

        CounterStoreProvider.Context context = RecordingProvider.LAST.get();
        assertThat(context.namespace()).isEqualTo("/shop");
        assertThat(context.setting("recording-max-keys")).hasValue("10");
        assertThat(context.setting("not-set")).isEmpty();
        assertThat(started.store()).isInstanceOf(FailurePolicyStore.class);
        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/shop/api/x").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/shop/api/x").statusCode()).isEqualTo(429);
    }

    @Test
    void filter_providerStoreRejected_repeatsTheRejectionWithoutAskingTheStoreUntilRetryAfter() throws Exception {
        JettyServer server = start(Map.of("store", RecordingProvider.class.getName(), "recording-max-keys", "10"));

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            statuses.add(server.get("/shop/api/x").statusCode());
        }
        HttpResponse<String> repeated = server.get("/shop/api/x");

        assertThat(statuses).containsExactly(200, 200, 200, 429, 429, 429, 429, 429, 429, 429);
        assertThat(repeated.statusCode()).isEqualTo(429);
        assertThat(repeated.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(1L, 60L));
        assertThat(RecordingProvider.STORE.get().calls).as("decisions that reached the store").hasValue(4);
    }

    @Test
    void filter_rejectionCacheZero_asksTheStoreForEveryRequest() throws Exception {
        JettyServer server = start(Map.of("store", RecordingProvider.class.getName(), "recording-max-keys", "10",
                "rejection-cache", "0"));

        for (int i = 0; i < 10; i++) {
            server.get("/shop/api/x");
        }

        assertThat(RecordingProvider.STORE.get().calls).as("decisions that reached the store").hasValue(10);
    }

    @Test
    void init_storeLocal_isNotWrappedInAFailurePolicy() throws Exception {
        start(Map.of("store", "local", "max-keys", "5"));
        RateLimitFilter started = (RateLimitFilter) filter.getFilter();

        assertThat(started.store()).isInstanceOf(LocalCounterStore.class);
    }

    /** Hides the store providers' service files, as a class path without their modules would. */
    private static final class WithoutStoreProviders extends ClassLoader {
        WithoutStoreProviders(ClassLoader parent) {
            super(parent);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return name.equals("META-INF/services/" + CounterStoreProvider.class.getName())
                    ? Collections.emptyEnumeration() : super.getResources(name);
        }
    }

    /**
     * An application's own provider, named by class: a local store counting the decisions that reach it, remembering
     * what it was given.
     */
    public static final class RecordingProvider implements CounterStoreProvider {
        static final AtomicReference<CounterStoreProvider.Context> LAST = new AtomicReference<>();
        static final AtomicReference<CountingStore> STORE = new AtomicReference<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public CounterStore open(Context context) {
            LAST.set(context);
            CountingStore store = new CountingStore(new LocalCounterStore(context.timeSource(),
                    Long.parseLong(context.setting("recording-max-keys").orElseThrow())));
            STORE.set(store);
            return store;
        }
    }

    /** A provider the filter cannot create. */
    public static final class NoPublicConstructor implements CounterStoreProvider {
        private NoPublicConstructor() {
        }

        @Override
        public String name() {
            return "hidden";
        }

        @Override
        public CounterStore open(Context context) {
            throw new AssertionError("never created");
        }
    }
}
