package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.TimeSource;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.rules.match.TestRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances, each a member of one real Hazelcast cluster (TCP-IP on 127.0.0.1, multicast off, free ports), each
 * with its own recorder, rules file and console: what either console shows is what both were sent.
 */
@Tag("cluster")
class ConsoleClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path temp;

    private List<HazelcastCounterStore> members;
    private final ConsoleRecorder[] recorders = {new ConsoleRecorder(), new ConsoleRecorder()};
    private final ReloadingRuleSet[] rules = new ReloadingRuleSet[2];
    private final Console[] consoles = new Console[2];

    @BeforeEach
    void start() throws Exception {
        members = ClusterSupport.startCluster(2, TimeSource.system());
        for (int i = 0; i < 2; i++) {
            Path file = temp.resolve("rules-" + i + ".json");
            Files.writeString(file, ConsoleRecorderTest.RULES);
            rules[i] = ReloadingRuleSet.builder().file(file).reloadInterval(Duration.ZERO).build();
            consoles[i] = Console.builder(members.get(i), recorders[i]).instance("instance-" + i)
                    .rules(rules[i], file.getFileName().toString()).interval(Duration.ofMillis(200)).build();
        }
    }

    @AfterEach
    void stop() {
        for (Console console : consoles) {
            console.close();
        }
        ClusterSupport.closeAll(members);
    }

    @Test
    void cluster_knownLoadOnBothInstances_sumsExactlyWhatWasSent() {
        // Five clients send 4 requests through each instance: 8 each against a shared limit of 5.
        for (int client = 1; client <= 5; client++) {
            for (int i = 0; i < 2; i++) {
                for (int request = 0; request < 4; request++) {
                    recorders[i].recorded(rules[i].get().evaluate(TestRequest.get("/hello")
                            .from("198.51.100." + client), members.get(i)), 0);
                }
            }
        }

        for (Console console : consoles) {
            ClusterSupport.await(() -> helloTotals(console.cluster()).equals(new Counts(25, 0, 15, 0)), WAIT,
                    "both instances' 40 decisions in " + console.instance() + "'s console");
            ClusterView view = console.cluster();
            assertThat(view.instances()).extracting(ClusterView.InstanceView::instance)
                    .containsExactly("instance-0", "instance-1");
            assertThat(view.instances()).allSatisfy(instance -> {
                assertThat(instance.store().mode()).isEqualTo("hazelcast-member");
                assertThat(instance.store().membersSeen()).isEqualTo(2);
            });
            assertThat(view.drift()).isFalse();
            RuleFigures hello = view.rules().stream().filter(r -> r.id().equals("hello")).findFirst().orElseThrow();
            assertThat(Arrays.stream(hello.series().allowed()).sum()).isEqualTo(25);
            assertThat(Arrays.stream(hello.series().rejected()).sum()).isEqualTo(15);
            assertThat(hello.keys()).hasSize(5).allSatisfy(key -> assertThat(key.limited()).isEqualTo(3));
        }
    }

    @Test
    void cluster_oneInstanceReloadsADifferentFile_flagsDriftOnIt() throws Exception {
        ClusterSupport.await(() -> consoles[0].cluster().instances().size() == 2, WAIT, "both instances");
        assertThat(consoles[0].cluster().drift()).isFalse();

        Files.writeString(temp.resolve("rules-1.json"),
                ConsoleRecorderTest.RULES.replace("\"permits\": 5", "\"permits\": 50"));
        assertThat(rules[1].reload()).isTrue();

        for (Console console : consoles) {
            ClusterSupport.await(() -> console.cluster().drift(), WAIT, "drift in " + console.instance());
            assertThat(console.cluster().instances()).filteredOn(ClusterView.InstanceView::drifted)
                    .extracting(ClusterView.InstanceView::instance).containsExactly("instance-1");
        }
    }

    @Test
    void cluster_anInstanceStops_itsSnapshotExpires() {
        ClusterSupport.await(() -> consoles[0].cluster().instances().size() == 2, WAIT, "both instances");

        consoles[1].close();

        ClusterSupport.await(() -> consoles[0].cluster().instances().size() == 1, WAIT,
                "instance-1's snapshot to expire");
        assertThat(consoles[0].cluster().instances()).extracting(ClusterView.InstanceView::instance)
                .containsExactly("instance-0");
    }

    @Test
    void cluster_thisInstancesMemberGone_showsItsOwnFiguresFlaggedAndWarnsOnce() {
        for (int request = 0; request < 7; request++) {
            recorders[1].recorded(rules[1].get().evaluate(TestRequest.get("/hello").from("198.51.100.9"),
                    members.get(1)), 0);
        }
        ClusterSupport.await(() -> consoles[1].cluster().instances().size() == 2, WAIT, "both instances");
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger consoleLog = Logger.getLogger(Console.class.getName());
        consoleLog.addHandler(capture);
        try {
            members.get(1).instance().shutdown();

            ClusterView view = consoles[1].cluster();
            assertThat(view.clusterUnreachable()).isTrue();
            assertThat(view.instances()).extracting(ClusterView.InstanceView::instance).containsExactly("instance-1");
            assertThat(helloTotals(view)).isEqualTo(new Counts(5, 0, 2, 0));
            assertThat(consoles[1].cluster().clusterUnreachable()).isTrue();
            // Once for the two reads (the publisher may warn apart from them: its own writes fail too).
            assertThat(warnings).extracting(LogRecord::getMessage).filteredOn(message -> message.contains("read"))
                    .containsExactly("the console cannot read the cluster's snapshots; it shows this instance's own "
                            + "figures alone until it can");
            assertThat(consoles[0].cluster().clusterUnreachable()).isFalse();
        } finally {
            consoleLog.removeHandler(capture);
        }
    }

    private static Counts helloTotals(ClusterView view) {
        return view.rules().stream().filter(rule -> rule.id().equals("hello")).map(RuleFigures::totals).findFirst()
                .orElse(Counts.ZERO);
    }
}
