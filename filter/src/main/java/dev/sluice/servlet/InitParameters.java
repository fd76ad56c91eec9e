package dev.sluice.servlet;

import dev.sluice.http.HeaderStyle;
import dev.sluice.internal.DurationText;
import dev.sluice.internal.SettingNames;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.store.CounterStoreProvider;
import dev.sluice.store.FailurePolicyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads a filter's own init-params ({@link FilterSettings#INIT_PARAMS}) into {@link FilterSettings}, each failure a
 * message naming the init-param and the form it expects, as store providers' init-params are. Stateless.
 */
final class InitParameters {

    private static final String DURATION = "a duration such as 100ms, 5s or PT1M";

    private InitParameters() {
    }

    /** See {@link FilterSettings#fromInitParameters}. */
    static FilterSettings read(Function<String, @Nullable String> initParameter) {
        FilterSettings.Builder builder = FilterSettings.builder();
        Params params = new Params(initParameter);
        params.with("rules", value -> builder.rules(value), "a location such as classpath:sluice-rules.json");
        params.with("rules-reload-interval", value -> builder.rulesReloadInterval(duration(value)), DURATION);
        params.with("store", value -> builder.storeProvider(value.trim(), initParameter),
                "a store name such as local or hazelcast, or a class name");
        params.with("failure-policy", value -> builder.failurePolicy(choice(value,
                FailurePolicyStore.OnFailure.values(), FailurePolicyStore.OnFailure::settingName)),
                "one of allow, reject, local");
        params.with("store-timeout", value -> builder.storeTimeout(duration(value)), DURATION);
        params.with("header-style", value -> builder.headerStyle(HeaderStyle.parse(value)),
                "one of both, draft, legacy, none");
        params.with("trusted-proxies", value -> builder.trustedProxies(list(value)),
                "a comma-separated list of IP addresses and CIDRs");
        params.with("client-address-header", value -> builder.clientAddressHeader(choice(value,
                ClientAddresses.Header.values(), header -> header.headerName().toLowerCase(Locale.ROOT))),
                "one of x-forwarded-for, forwarded");
        params.with("ipv6-prefix", value -> builder.ipv6Prefix(Integer.parseInt(value.trim())),
                "a prefix length from 1 to 128");
        params.with("max-keys", value -> builder.maxKeys(Long.parseLong(value.trim())), "a positive number");
        params.with("rejection-cache", value -> builder.rejectionCache(Integer.parseInt(value.trim())),
                "a number of rejections, 0 for none");
        params.with("namespace", builder::namespace, "a name");
        params.with("metrics", value -> builder.metrics(metrics(value)), "one of none, micrometer");
        return builder.build();
    }

    private static Duration duration(String text) {
        String value = text.trim();
        Duration parsed = value.equals("0") ? Duration.ZERO : DurationText.parse(value).orElse(null);
        if (parsed == null) {
            throw new IllegalArgumentException(value);
        }
        return parsed;
    }

    private static DecisionMetrics metrics(String value) {
        if (value.trim().equalsIgnoreCase("none")) {
            return DecisionMetrics.NONE;
        }
        if (!value.trim().equalsIgnoreCase("micrometer")) {
            throw new IllegalArgumentException(value);
        }
        try {
            return MicrometerDecisionMetrics.global();
        } catch (LinkageError e) {
            throw new IllegalArgumentException("Micrometer (io.micrometer:micrometer-core) is not on the classpath", e);
        }
    }

    private static <T> T choice(String text, T[] values, Function<T, String> name) {
        String wanted = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values).filter(value -> name.apply(value).equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(text));
    }

    private static List<String> list(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
    }

    /**
     * Reads init-params, turning any failure into a message that names the param and the expected form, as store
     * providers' init-params are.
     */
    private static final class Params {
        private final Function<String, @Nullable String> source;

        Params(Function<String, @Nullable String> source) {
            this.source = source;
        }

        void with(String name, Consumer<String> apply, String expected) {
            String value = source.apply(name);
            if (value != null) {
                CounterStoreProvider.Context.parse(name, value, text -> {
                    apply.accept(text);
                    return text;
                }, expected);
            }
        }
    }

    /**
     * Refuses an init-param name neither the filter nor its store provider takes, unless the provider takes all; a
     * name another store on the class path takes is refused saying so.
     */
    static void requireKnown(List<String> names, FilterSettings settings, ClassLoader loader) {
        Optional<Set<String>> storeNames = Stores.settingNames(settings, loader);
        if (storeNames.isEmpty()) {
            return;
        }
        List<String> known = new ArrayList<>(FilterSettings.INIT_PARAMS);
        known.addAll(storeNames.get());
        String store = settings.storeProvider();
        for (String name : names) {
            List<String> stores = known.contains(name) ? List.of() : Stores.providersTaking(name, loader);
            if (!stores.isEmpty()) {
                throw new IllegalArgumentException("init-param '" + name + "' belongs to store '"
                        + String.join("' or '", stores) + "', but init-param 'store' is '" + store + "'");
            }
        }
        SettingNames.requireKnown(names, "a Sluice filter init-param" + (storeNames.get().isEmpty() ? ""
                : " nor one of store '" + store + "'"), known);
    }
}
