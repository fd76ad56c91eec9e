package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.FailurePolicyStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The conditions that pick the store when the application has a HazelcastInstance bean: a real member on loopback,
 * made by the test as an application's configuration would make it.
 */
@Tag("cluster")
class HazelcastStoreConditionsTest {

    private final List<HazelcastInstance> members = new ArrayList<>();

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class));

    @AfterEach
    void shutDown() {
        members.forEach(HazelcastInstance::shutdown);
    }

    private HazelcastInstance member() {
        Config config = new Config().setClusterName(ClusterSupport.newClusterName());
        ClusterSupport.TEST_PROPERTIES.forEach(config::setProperty);
        config.getNetworkConfig().setPort(ClusterSupport.freePort()).setPortAutoIncrement(false);
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).addMember(ClusterSupport.LOOPBACK);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface(ClusterSupport.LOOPBACK);
        config.setProperty("hazelcast.socket.bind.any", "false");
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        return member;
    }

    @Test
    void hazelcastInstanceBean_countsInItBehindTheFiltersFailurePolicy() {
        HazelcastInstance member = member();
        web.withBean(HazelcastInstance.class, () -> member).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(HazelcastCounterStore.class);
            RateLimitFilter filter = context.getBean(RateLimitFilter.class);
            assertThat(filter.status().store()).isEqualTo("hazelcast-instance");
            assertThat(filter.status().membersSeen()).isEqualTo(1);
            assertThat(filter.status().failurePolicy()).isEqualTo("local");
            assertThat(filter.status().storeTimeout()).isEqualTo("100ms");
            assertThat(filter.store()).isInstanceOf(FailurePolicyStore.class);
        });
        assertThat(member.getLifecycleService().isRunning()).as("the application's instance, left running").isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "hazelcast-instance"})
    void storeAutoOrInstance_hazelcastInstanceBeanCountsTheLimits(String store) {
        HazelcastInstance member = member();
        web.withBean(HazelcastInstance.class, () -> member).withPropertyValues("sluice.store=" + store)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(HazelcastCounterStore.class);
                    assertThat(context.getBean(RateLimitFilter.class).status().store())
                            .isEqualTo("hazelcast-instance");
                });
    }

    @Test
    void storeLocal_hazelcastInstanceBeanLeftAlone() {
        HazelcastInstance member = member();
        web.withBean(HazelcastInstance.class, () -> member).withPropertyValues("sluice.store=local").run(context -> {
            assertThat(context).doesNotHaveBean(HazelcastCounterStore.class);
            assertThat(context.getBean(RateLimitFilter.class).status().store()).isEqualTo("local");
        });
    }

    @Test
    void hazelcastInstanceWithoutSluiceHazelcast_refusesToCountLocallyWithoutAWord() {
        HazelcastInstance member = member();
        web.withBean(HazelcastInstance.class, () -> member)
                .withClassLoader(new FilteredClassLoader(HazelcastCounterStore.class))
                .run(context -> assertThat(SluiceAutoConfigurationTest.sluiceFailure(context))
                        .hasMessage("The application has a HazelcastInstance, but Sluice cannot count in it:"
                                + " dev.sluice:sluice-hazelcast is not on the class path; it would count in this JVM"
                                + " alone."));
    }

    @Test
    void twoHazelcastInstances_refusedUntilOneIsChosen() {
        HazelcastInstance first = member();
        HazelcastInstance second = member();
        web.withBean("first", HazelcastInstance.class, () -> first)
                .withBean("second", HazelcastInstance.class, () -> second)
                .run(context -> assertThat(SluiceAutoConfigurationTest.sluiceFailure(context))
                        .hasMessageContaining("it has 2 HazelcastInstance beans and none is primary"));
    }
}
