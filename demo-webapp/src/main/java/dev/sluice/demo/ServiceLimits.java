package dev.sluice.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.rules.DurationText;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The limits the limiter service offers, by id, each on {@link Algorithm#STEPPED_SLIDING_WINDOW}. Read from JSON:
 *
 * <pre>{"limits": {"partner-api": {"permits": 10, "period": "1m"}}}</pre>
 *
 * Immutable and thread-safe.
 */
public final class ServiceLimits {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, ServiceLimit> limits;

    private ServiceLimits(Map<String, ServiceLimit> limits) {
        this.limits = Map.copyOf(limits);
    }

    /** One limit of the service: its policy, and the store key it counts under. */
    record ServiceLimit(String id, Policy policy, String counterKey) {
        Limit limit() {
            return policy.limits().get(0);
        }
    }

    private record LimitsFile(@Nullable Map<String, LimitSpec> limits) {
    }

    private record LimitSpec(long permits, @Nullable String period) {
    }

    /**
     * Parses the file's content.
     *
     * @throws IllegalArgumentException naming {@code source} and the mistake
     */
    static ServiceLimits parse(String source, String json) {
        LimitsFile file;
        try {
            file = JSON.readValue(json, LimitsFile.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + ": " + e.getOriginalMessage(), e);
        }
        if (file.limits() == null || file.limits().isEmpty()) {
            throw new IllegalArgumentException(source + ": expected a non-empty \"limits\" object");
        }
        Map<String, ServiceLimit> limits = new LinkedHashMap<>();
        file.limits().forEach((id, spec) -> {
            Duration period = DurationText.parse(spec.period() == null ? "" : spec.period())
                    .orElseThrow(() -> new IllegalArgumentException(source + ": limits." + id + ".period: expected "
                            + DurationText.EXPECTED + ", got \"" + spec.period() + "\""));
            Limit limit;
            try {
                limit = Limit.of(spec.permits(), period).named(id);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ": limits." + id + ": " + e.getMessage(), e);
            }
            // The limit is part of the key: changed limits start afresh, as the filter's rules do.
            String counterKey = "limiter-service|" + id + "|" + limit.permits() + "/" + period;
            limits.put(id, new ServiceLimit(id, Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, limit), counterKey));
        });
        return new ServiceLimits(limits);
    }

    Optional<ServiceLimit> find(String id) {
        return Optional.ofNullable(limits.get(id));
    }
}
