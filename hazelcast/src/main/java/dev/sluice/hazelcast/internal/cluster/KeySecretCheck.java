package dev.sluice.hazelcast.internal.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Whether this instance hashes counter keys with the secret the cluster's other instances of its counters map use:
 * instances with different secrets would count one client under different keys, each admitting the whole limit. The
 * first instance to check puts its {@linkplain KeySecret#fingerprint fingerprint} into the map
 * {@code <counters map>.key-fingerprint}; each later one compares its own with it, when its store starts, at a
 * client's every (re)connection and whenever a member joins (two sides of a split brain, say, merging). A store that
 * finds another fingerprint when it starts does not start; one that finds it later refuses every call
 * ({@link #requireAgreed}), so its failure policy decides, until a check finds its own again. Both say so at ERROR,
 * naming the setting. Thread-safe.
 */
public final class KeySecretCheck implements MembershipListener {

    /** What the fingerprint map's name adds to the counters map's. */
    public static final String MAP_SUFFIX = ".key-fingerprint";

    /** The fingerprint's entry in that map. */
    static final String ENTRY = "fingerprint";

    private final HazelcastInstance instance;
    private final String countersMap;
    private final KeySecret secret;
    private final System.Logger log;
    private volatile boolean differs;
    private volatile @Nullable UUID listener;

    /** @param log where a difference is said: the store's logger */
    public KeySecretCheck(HazelcastInstance instance, String countersMap, KeySecret secret, System.Logger log) {
        this.instance = instance;
        this.countersMap = countersMap;
        this.secret = secret;
        this.log = log;
    }

    /**
     * Compares this instance's fingerprint with the cluster's (putting it there if the cluster has none), waiting as
     * long as Hazelcast waits for a call; a cluster that cannot be asked leaves the verdict as it was.
     *
     * @param starting whether the store starts: then a different fingerprint throws
     * @throws IllegalStateException when starting and the cluster's fingerprint is another secret's
     */
    public synchronized void check(boolean starting) {
        IMap<String, String> map = instance.getMap(countersMap + MAP_SUFFIX);
        String ours = secret.fingerprint();
        String found;
        try {
            String before = map.putIfAbsent(ENTRY, ours);
            found = before == null ? ours : before;
        } catch (RuntimeException e) {
            log.log(System.Logger.Level.DEBUG, "Sluice: key secret not compared with the cluster''s ({0}); compared "
                    + "again at the next connection or join", e.getClass().getName());
            return;
        }
        if (found.equals(ours)) {
            if (differs) {
                differs = false;
                log.log(System.Logger.Level.WARNING, "Sluice: this instance's key secret is the cluster's again; "
                        + "decisions go to the cluster");
            }
            return;
        }
        String problem = problem(found);
        log.log(System.Logger.Level.ERROR, problem + (starting ? " The store does not start."
                : " Every call fails until they agree; the failure policy decides."));
        differs = true;
        if (starting) {
            throw new IllegalStateException(problem);
        }
    }

    /** Whether the last check found another secret's fingerprint in the cluster. */
    public boolean differs() {
        return differs;
    }

    /**
     * Throws while the last check found another secret's fingerprint.
     *
     * @throws IllegalStateException saying so
     */
    public void requireAgreed() {
        if (differs) {
            throw new IllegalStateException("Sluice: this instance's key secret differs from the cluster's; see the "
                    + "ERROR logged when this was found");
        }
    }

    /** Checks again whenever a member joins. */
    public KeySecretCheck following() {
        listener = instance.getCluster().addMembershipListener(this);
        return this;
    }

    /** Stops following the members. */
    public void stop() {
        UUID registered = listener;
        if (registered != null) {
            listener = null;
            MembershipListeners.remove(instance, registered);
        }
    }

    @Override
    public void memberAdded(MembershipEvent event) {
        // Not on the event thread: the check calls the cluster.
        Thread thread = new Thread(() -> check(false), "sluice-key-secret-check");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
        // A member leaving takes no fingerprint away: the map keeps it with its backup.
    }

    private String problem(String found) {
        return "Sluice: this instance's key secret is not the one the cluster's other instances of map '" + countersMap
                + "' hash counter keys with (fingerprint " + shown(secret.fingerprint()) + " here, " + shown(found)
                + " in the cluster" + (secret.configured() ? "" : "; none is configured here") + "): they would count "
                + "each client under two keys, and each admit the whole limit. Give every instance the same secret: "
                + "init-param hazelcast-key-secret, StoreOptions.Builder.keySecret(...), or Spring Boot's "
                + "sluice.store-settings.hazelcast-key-secret (docs/cluster.md: the cluster's boundary).";
    }

    /** The last 8 characters of a fingerprint: enough to tell two apart in a log line. */
    private static String shown(String fingerprint) {
        return "..." + fingerprint.substring(Math.max(0, fingerprint.length() - 8));
    }
}
