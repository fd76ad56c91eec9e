package dev.sluice.demo;

import dev.sluice.demo.launcher.DemoOptions;
import dev.sluice.hazelcast.ClusterSupport;
import java.util.ArrayList;
import java.util.List;

/**
 * Launcher options for test instances of the demo: started as users start them, through {@code DemoLauncher} with
 * the module's {@code web.xml} and rules, but on 127.0.0.1 and free ports, in a cluster of their own (a fresh
 * cluster name, joined over TCP-IP, multicast off).
 */
public final class DemoInstances {

    private DemoInstances() {
    }

    /** Options for {@code count} instances that form one cluster. */
    public static List<DemoOptions> cluster(int count) {
        String clusterName = ClusterSupport.newClusterName();
        List<Integer> hazelcastPorts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            hazelcastPorts.add(ClusterSupport.freePort());
        }
        List<String> members = hazelcastPorts.stream().map(port -> ClusterSupport.LOOPBACK + ":" + port).toList();
        return hazelcastPorts.stream().map(port -> DemoOptions.defaults().withPort(0).withHazelcastPort(port)
                .withMembers(members).withClusterName(clusterName)).toList();
    }

}
