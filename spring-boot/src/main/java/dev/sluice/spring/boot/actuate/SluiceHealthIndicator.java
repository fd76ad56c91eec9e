package dev.sluice.spring.boot.actuate;

import dev.sluice.http.LimiterStatus;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.StoreHealth;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of Sluice's store: {@code UP} while it answers; while it fails, is slower than its timeout or (for a
 * cluster) sees no member, {@code DOWN} under the failure policy {@code reject} (every limited request is refused) and
 * {@link #DEGRADED} under {@code local} or {@code allow}, where requests are still served. The details: the store's
 * mode and members, its failures, time-outs and shed calls in the last minute, the warnings about how its cluster keeps
 * its maps, the failure policy and timeout, the rules in force. Thread-safe.
 */
public final class SluiceHealthIndicator implements HealthIndicator {

    /**
     * The status of a limiter whose store fails while requests are still served (counted on each instance, or let
     * through). Not in Spring Boot's default status order, so it does not change the application's aggregate health
     * unless {@code management.endpoint.health.status.order} lists it.
     */
    public static final Status DEGRADED = new Status("DEGRADED", "the store fails; the failure policy decides");

    private final RateLimitFilter filter;

    public SluiceHealthIndicator(RateLimitFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
    }

    @Override
    public Health health() {
        StoreHealth store = filter.health();
        LimiterStatus status = filter.status();
        boolean remote = !store.mode().equals(StoreHealth.LOCAL.mode());
        boolean failing = store.lastMinute().total() > 0 || remote && store.membersSeen() == 0;
        Health.Builder health = !failing ? Health.up()
                : status.failurePolicy().equals("reject") ? Health.down() : Health.status(DEGRADED);
        return health.withDetail("store", store.mode())
                .withDetail("membersSeen", store.membersSeen())
                .withDetail("failedLastMinute", store.lastMinute().failed())
                .withDetail("timedOutLastMinute", store.lastMinute().timedOut())
                .withDetail("shedLastMinute", store.lastMinute().shed())
                .withDetail("incompatibleMembersSeen", store.cluster().incompatibleMembersSeen())
                .withDetail("mapWarnings", store.cluster().mapWarnings())
                .withDetail("failurePolicy", status.failurePolicy())
                .withDetail("storeTimeout", status.storeTimeout())
                .withDetail("rules", status.rules())
                .withDetail("rulesSource", status.rulesSource())
                .build();
    }
}
