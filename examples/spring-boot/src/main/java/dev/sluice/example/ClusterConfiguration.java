package dev.sluice.example;

import com.hazelcast.config.Config;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * With the profile {@code cluster}: a Hazelcast member on 127.0.0.1, joining the instances at
 * {@code example.hazelcast.members} over TCP-IP, which Spring Boot's Hazelcast auto-configuration starts from this
 * {@code Config} and Sluice then counts in. (An application with a {@code hazelcast.yaml} needs no such class.)
 */
@Configuration(proxyBeanMethods = false)
@Profile("cluster")
class ClusterConfiguration {

    @Bean
    Config hazelcastConfig(@Value("${example.hazelcast.port:5701}") int port,
                           @Value("${example.hazelcast.members:127.0.0.1:5701,127.0.0.1:5702}") List<String> members) {
        Config config = new Config().setClusterName("sluice-example");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(members);
        return config;
    }
}
