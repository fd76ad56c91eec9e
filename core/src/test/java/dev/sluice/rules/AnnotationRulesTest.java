package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
import dev.sluice.annotation.Sync;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnnotationRulesTest {

    @RateLimited(id = "users", permits = 100, period = "1m")
    public static class UserResource {
        public String list() {
            return "";
        }

        public int count() {
            return 0;
        }

        @RateLimited(id = "user-get", permits = 5, period = "1s", key = "path:id", algorithm = Algorithm.GCRA)
        public String get(String id) {
            return id;
        }

        @RateLimitExempt
        public String health() {
            return "";
        }

        @RateLimited(id = "search", permits = 10, period = "1s", key = {"principal", "header:X-Tenant"})
        @RateLimited(id = "search", permits = 1000, period = "1d", key = {"principal", "header:X-Tenant"})
        public String search() {
            return "";
        }

        @RateLimited(rule = "login")
        public String login() {
            return "";
        }

        @RateLimited(permits = 1, period = "PT1H", shadow = true, cost = 1)
        public String export() {
            return "";
        }
    }

    public static class BadPeriod {
        @RateLimited(permits = 5, period = "5 minutes")
        public void slow() {
        }
    }

    public static class UnknownKeyType {
        @RateLimited(permits = 5, period = "1s", key = "hedaer:X-Api-Key")
        public void keyed() {
        }
    }

    public static class HeaderWithoutName {
        @RateLimited(permits = 5, period = "1s", key = "header")
        public void keyed() {
        }
    }

    public static class DisagreeingMethods {
        @RateLimited(id = "x", permits = 5, period = "1s")
        public void first() {
        }

        @RateLimited(id = "x", permits = 50, period = "1s")
        public void second() {
        }
    }

    public static class DisagreeingLimits {
        @RateLimited(id = "x", permits = 5, period = "1s", key = "ip")
        @RateLimited(id = "x", permits = 50, period = "1m", key = "principal")
        public void mixed() {
        }
    }

    @RateLimited(permits = 5, period = "1s", capacity = 10, algorithm = Algorithm.FIXED_WINDOW)
    public static class WindowWithCapacity {
        public void any() {
        }
    }

    public static class Leased {
        @RateLimited(id = "hot", permits = 1000, period = "1s", key = "constant", algorithm = Algorithm.GCRA,
                lease = true)
        public void hot() {
        }

        @RateLimited(id = "logged", permits = 1000, period = "1s", algorithm = Algorithm.SLIDING_WINDOW_LOG,
                lease = true)
        public void logged() {
        }
    }

    public static class Synced {
        @RateLimited(id = "cold", permits = 100, period = "1s", key = "header:X-Api-Key",
                algorithm = Algorithm.SLIDING_WINDOW_COUNTER, sync = Sync.SYNCHRONISED)
        public void cold() {
        }

        @RateLimited(id = "bucket", permits = 100, period = "1s", sync = Sync.SYNCHRONISED, syncBudget = 2)
        public void bucket() {
        }

        @RateLimited(id = "exactBudget", permits = 100, period = "1s", syncBudget = 2)
        public void exactBudget() {
        }

        @RateLimited(id = "both", permits = 100, period = "1s", algorithm = Algorithm.FIXED_WINDOW, lease = true,
                sync = Sync.SYNCHRONISED)
        public void both() {
        }
    }

    private static Method method(String name) {
        for (Method method : UserResource.class.getMethods()) {
            if (method.getName().equals(name)) {
                return method;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void forMethod_classLevelAnnotation_appliesToUnannotatedMethod() {
        List<Rule> rules = AnnotationRules.forMethod(UserResource.class, method("list"));

        assertThat(rules).singleElement().satisfies(rule -> {
            assertThat(rule.id()).isEqualTo("users");
            assertThat(rule.requestLimits().orElseThrow().defaults().limits())
                    .containsExactly(Limit.of(100, Duration.ofMinutes(1)).named("users:100/1m"));
            assertThat(rule.match().resourceMethods()).containsExactly(method("list"));
        });
    }

    @Test
    void forMethod_methodLevelAnnotation_overridesClassLevel() {
        List<Rule> rules = AnnotationRules.forMethod(UserResource.class, method("get"));

        assertThat(rules).extracting(Rule::id).containsExactly("user-get");
        assertThat(rules.get(0).key().spec()).isEqualTo(KeySpec.of(KeySpec.Kind.PATH, "id"));
        assertThat(rules.get(0).requestLimits().orElseThrow().defaults().algorithm()).isEqualTo(Algorithm.GCRA);
    }

    @Test
    void forMethod_exempt_hasNoRules() {
        assertThat(AnnotationRules.forMethod(UserResource.class, method("health"))).isEmpty();
    }

    @Test
    void forMethod_repeatedId_becomesOneMultiLimitRuleWithCompositeKey() {
        Rule search = AnnotationRules.forMethod(UserResource.class, method("search")).get(0);

        assertThat(search.requestLimits().orElseThrow().defaults().limits()).extracting(Limit::name)
                .containsExactly("search:10/1s", "search:1000/1d");
        assertThat(search.key().spec()).isEqualTo(KeySpec.composite(KeySpec.principal(),
                KeySpec.of(KeySpec.Kind.HEADER, "X-Tenant")));
    }

    @Test
    void forMethod_defaultIdAndShadow() {
        Rule export = AnnotationRules.forMethod(UserResource.class, method("export")).get(0);

        assertThat(export.id()).isEqualTo(UserResource.class.getName() + "#export");
        assertThat(export.mode()).isEqualTo(Mode.SHADOW);
        assertThat(export.requestLimits().orElseThrow().defaults().limits().get(0).period())
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void forClass_classLevelRuleIsSharedByItsMethods() {
        List<Rule> rules = AnnotationRules.forClass(UserResource.class);

        assertThat(rules).extracting(Rule::id).containsExactlyInAnyOrder("users", "user-get", "search", "login",
                UserResource.class.getName() + "#export");
        Rule users = rules.stream().filter(r -> r.id().equals("users")).findFirst().orElseThrow();
        assertThat(users.match().resourceMethods()).containsExactlyInAnyOrder(method("list"), method("count"));
    }

    @Test
    void forClass_badPeriod_namesClassAndMethod() {
        assertThatThrownBy(() -> AnnotationRules.forClass(BadPeriod.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(BadPeriod.class.getName() + "#slow")
                .hasMessageContaining("period: expected a duration such as \"10s\", \"5m\", \"1h\" or \"PT1M\","
                        + " got \"5 minutes\"");
    }

    @Test
    void forClass_unknownKeyType_namesClassAndMethod() {
        assertThatThrownBy(() -> AnnotationRules.forClass(UnknownKeyType.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(UnknownKeyType.class.getName() + "#keyed")
                .hasMessageContaining("unknown key type \"hedaer\"");
    }

    @Test
    void forClass_headerKeyWithoutName_namesClassAndMethod() {
        assertThatThrownBy(() -> AnnotationRules.forClass(HeaderWithoutName.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(HeaderWithoutName.class.getName() + "#keyed")
                .hasMessageContaining("key type header needs a name");
    }

    @Test
    void forClass_sameIdDifferentKeys_isAnError() {
        assertThatThrownBy(() -> AnnotationRules.forClass(DisagreeingLimits.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(DisagreeingLimits.class.getName() + "#mixed")
                .hasMessageContaining("must agree");
    }

    @Test
    void forClass_twoMethodsDefiningOneIdDifferently_isAnErrorNamingBoth() {
        assertThatThrownBy(() -> AnnotationRules.forClass(DisagreeingMethods.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(DisagreeingMethods.class.getName() + "#first")
                .hasMessageContaining(DisagreeingMethods.class.getName() + "#second")
                .hasMessageContaining("must agree");
    }

    @Test
    void forClass_capacityTheAlgorithmCannotHave_namesClassAndMethod() {
        assertThatThrownBy(() -> AnnotationRules.forClass(WindowWithCapacity.class))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining(WindowWithCapacity.class.getName() + "#any (from the class)")
                .hasMessageContaining("the fixed window has no separate capacity");
    }

    @Test
    void forMethod_lease_leasesTheRulesPolicy() throws Exception {
        Rule rule = AnnotationRules.forMethod(Leased.class, Leased.class.getMethod("hot")).get(0);
        assertThat(rule.distribution().lease()).isTrue();
        assertThat(rule.requestLimits().orElseThrow().defaults().leased()).isTrue();
    }

    @Test
    void forMethod_leaseOfAnAlgorithmThatCannotLease_namesTheMethodAndWhy() throws Exception {
        assertThatThrownBy(() -> AnnotationRules.forMethod(Leased.class, Leased.class.getMethod("logged")))
                .isInstanceOf(RulesException.class)
                .hasMessage("@RateLimited(id = \"logged\") on " + Leased.class.getName() + "#logged: lease: expected"
                        + " false, as the sliding window log cannot lease (it records the instant of each grant; the"
                        + " stepped sliding window can), got true");
    }

    @Test
    void forMethod_syncSynchronised_synchronisesTheRulesPolicy() throws Exception {
        Rule rule = AnnotationRules.forMethod(Synced.class, Synced.class.getMethod("cold")).get(0);
        assertThat(rule.distribution().sync()).isEqualTo(Sync.SYNCHRONISED);
        assertThat(rule.requestLimits().orElseThrow().defaults().synced()).isTrue();
        assertThat(rule.requestLimits().orElseThrow().defaults().leased()).isFalse();
    }

    @Test
    void forMethod_syncedTokenBucketWithABudget_carriesTheBudgetToThePolicy() throws Exception {
        Rule rule = AnnotationRules.forMethod(Synced.class, Synced.class.getMethod("bucket")).get(0);
        assertThat(rule.distribution().syncBudget()).hasValue(2);
        assertThat(rule.requestLimits().orElseThrow().defaults().syncBudget()).hasValue(2);
        assertThat(rule.requestLimits().orElseThrow().defaults().algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
    }

    @Test
    void forMethod_budgetWithoutSync_namesTheMethodAndWhy() throws Exception {
        assertThatThrownBy(() -> AnnotationRules.forMethod(Synced.class, Synced.class.getMethod("exactBudget")))
                .isInstanceOf(RulesException.class)
                .hasMessage("@RateLimited(id = \"exactBudget\") on " + Synced.class.getName() + "#exactBudget:"
                        + " syncBudget: expected none, as only a rule with \"sync\": \"synchronised\" has one, got 2");
    }

    @Test
    void forMethod_syncAndLease_namesTheMethodAndBoth() throws Exception {
        assertThatThrownBy(() -> AnnotationRules.forMethod(Synced.class, Synced.class.getMethod("both")))
                .isInstanceOf(RulesException.class)
                .hasMessage("@RateLimited(id = \"both\") on " + Synced.class.getName() + "#both: sync: expected"
                        + " \"exact\", as a leased policy cannot also be synchronised: choose one,"
                        + " got \"synchronised\"");
    }

    @Test
    void combine_jsonRuleWithAnnotationId_overridesItsLimitsAndKeepsMatchingTheMethod() {
        RulesFile json = RulesFile.parse("rules.json", """
                {"rules": [
                  {"id": "search", "limits": [{"permits": 1, "period": "1s"}], "key": {"type": "constant"}},
                  {"id": "login", "limits": [{"permits": 2, "period": "1m"}], "match": {"paths": ["/login"]}}
                ]}
                """);
        RuleSet rules = RuleSet.combine(json, AnnotationRules.forClass(UserResource.class));
        LocalCounterStore store = new LocalCounterStore(new ManualTimeSource(), 100, Runnable::run);

        Rule search = rules.rule("search").orElseThrow();
        assertThat(search.requestLimits().orElseThrow().defaults().limits()).extracting(Limit::name)
                .containsExactly("search:1/1s");
        assertThat(search.match().resourceMethods()).containsExactly(method("search"));
        TestRequest searching = TestRequest.get("/whatever").routedTo(method("search"));
        assertThat(rules.evaluate(searching, store).allowed()).isTrue();
        assertThat(rules.evaluate(searching, store).allowed()).isFalse();
        Rule login = rules.rule("login").orElseThrow();
        assertThat(login.match().resourceMethods()).containsExactly(method("login"));
        assertThat(rules.match(TestRequest.get("/login"))).containsExactly(login);
        assertThat(rules.match(TestRequest.get("/x").routedTo(method("login")))).containsExactly(login);
    }

    @Test
    void combine_annotationNamingAbsentJsonRule_isAnError() {
        assertThatThrownBy(() -> RuleSet.combine(RulesFile.empty(), AnnotationRules.forClass(UserResource.class)))
                .isInstanceOf(RulesException.class)
                .hasMessageContaining("@RateLimited(id = \"login\") on " + UserResource.class.getName() + "#login")
                .hasMessageContaining("has no limits and no rules file rule with its id");
    }
}
