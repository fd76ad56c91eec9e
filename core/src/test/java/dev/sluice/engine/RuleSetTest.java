package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.OnMissingKey;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Mode;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleBuilder;
import dev.sluice.rules.RuleResponse;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.ClientAddresses.Header;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.Command;
import dev.sluice.store.CounterKeys;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RuleSetTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);

    private static RuleBuilder rule(String id, long permits, String... paths) {
        return Rule.builder(id).paths(paths).policy(perMinute(permits));
    }

    private static Policy perMinute(long permits) {
        return Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(permits, Duration.ofMinutes(1)));
    }

    private static RuleSet rules(Rule... rules) {
        return RuleSet.of(List.of(rules), ClientAddresses.direct());
    }

    /** Evaluates {@code request} {@code times} times and returns the last evaluation. */
    private Evaluation evaluate(RuleSet rules, TestRequest request, int times) {
        Evaluation last = null;
        for (int i = 0; i < times; i++) {
            last = rules.evaluate(request, store);
        }
        return last;
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/login", "/api//login", "/api/login;jsessionid=x", "/api/./login", "/api/x/../login",
        "/api/%6Cogin", "/api/%6cogin", "//api/login/", "/api/login?next=/home", "/x/../../api/login", "/api%2Flogin",
        "/api/;x=1/login", "/%61pi/login#frag", "/api/%2E/login", "/api/x/%2e%2e/login"})
    void match_pathVariants_allHitTheSameRule(String variant) {
        RuleSet rules = rules(rule("login", 5, "/api/login").build());

        assertThat(rules.match(TestRequest.get(variant))).extracting(Rule::id).containsExactly("login");
    }

    /** "%\u0666C" is no escape (an Arabic-Indic six is not a hex digit): it stays literal and matches nothing. */
    @Test
    void match_percentEscapeWithNonAsciiDigit_staysLiteral() {
        RuleSet rules = rules(rule("login", 5, "/api/login").build());

        assertThat(rules.match(TestRequest.get("/api/%\u0666Cogin"))).isEmpty();
        assertThat(rules.match(TestRequest.get("/api/%\uFF16Cogin"))).isEmpty();
    }

    @Test
    void evaluate_pathVariants_shareOneCounter() {
        RuleSet rules = rules(rule("login", 2, "/api/login").build());

        rules.evaluate(TestRequest.get("/api//login"), store);
        rules.evaluate(TestRequest.get("/api/%6Cogin"), store);

        assertThat(rules.evaluate(TestRequest.get("/api/login;jsessionid=x"), store).allowed()).isFalse();
    }

    @Test
    void evaluate_hostileRequests_neverThrowAndKeepKeysBounded() {
        RuleSet rules = rules(rule("all", 1000, "/**").key(KeySpec.composite(KeySpec.ip(),
                KeySpec.of(KeySpec.Kind.HEADER, "X-Key"))).fallbackKey("none").build());
        List<TestRequest> hostile = List.of(
                new TestRequest().method(null).host(null).path(null).from(null),
                TestRequest.get("/" + "../".repeat(100_000) + "a"),
                TestRequest.get("/a".repeat(300_000)),
                TestRequest.get("/%").header("X-Key", ""),
                TestRequest.get("/%zz/%e9%/%F0%9F").header("X-Key", "\u0000\r\n|%"),
                TestRequest.get("/\uD800x/%ED%A0%80").from("999.999.999.999"),
                TestRequest.get("/a").from("2001:db8::1%25eth0").header("X-Key", "\uFFFF".repeat(1 << 20)));

        for (TestRequest request : hostile) {
            Evaluation evaluation = rules.evaluate(request, store);

            assertThat(evaluation.outcomes()).as("counted under a bounded key").hasSize(1)
                    .allSatisfy(o -> assertThat(o.key().length())
                            .isLessThanOrEqualTo(2 * CounterKeys.MAX_PART_LENGTH + 1));
        }
    }

    @Test
    void match_patterns_literalWildcardVariableAndTrailingDoubleStar() {
        RuleSet rules = rules(rule("all", 1, "/api/**").build(), rule("user", 1, "/api/users/{id}").build(),
                rule("any-child", 1, "/api/*/orders").build(), rule("root", 1, "/").build());

        assertThat(rules.match(TestRequest.get("/api"))).extracting(Rule::id).containsExactly("all");
        assertThat(rules.match(TestRequest.get("/api/users/7"))).extracting(Rule::id).containsExactly("all", "user");
        assertThat(rules.match(TestRequest.get("/api/users/7/x"))).extracting(Rule::id).containsExactly("all");
        assertThat(rules.match(TestRequest.get("/api/carts/orders"))).extracting(Rule::id)
                .containsExactly("all", "any-child");
        assertThat(rules.match(TestRequest.get("/"))).extracting(Rule::id).containsExactly("root");
        assertThat(rules.match(TestRequest.get("/other"))).isEmpty();
    }

    @Test
    void match_methodsAndHost_restrictTheRule() {
        RuleSet rules = rules(rule("post", 1, "/a").methods("post").host("API.example.com:443").build(),
                rule("sub", 1, "/a").host("*.example.org").build());

        assertThat(rules.match(TestRequest.get("/a").method("POST").host("api.example.com"))).extracting(Rule::id)
                .containsExactly("post");
        assertThat(rules.match(TestRequest.get("/a").method("GET").host("eu.example.org"))).extracting(Rule::id)
                .containsExactly("sub");
        assertThat(rules.match(TestRequest.get("/a").method("POST").host("eu.example.org:8443")))
                .extracting(Rule::id).containsExactly("sub");
    }

    /** A host picks among host rules only when it is one of theirs: no other host, and no host, escapes them. */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.1:8080", "[::1]:8080", "www.example.com", "api.example.com..",
        "api.example.com:8080", "admin.example.com", "admin.example.com:9443", "api.example.com.evil.test", "",
        "api.example.com:x", "admin.example.com:8443:1"})
    void match_hostNamingNoHostRule_meetsEveryHostRule(String host) {
        RuleSet rules = rules(rule("api", 1, "/a").host("api.example.com:443").build(),
                rule("admin", 1, "/a").host("admin.example.com:8443").build(), rule("any", 1, "/a").build(),
                rule("elsewhere", 1, "/b").host("www.example.com").build());

        assertThat(rules.match(TestRequest.get("/a").host(host))).extracting(Rule::id)
                .containsExactly("api", "admin", "any");
        assertThat(rules.match(TestRequest.get("/a").host(null))).extracting(Rule::id)
                .containsExactly("api", "admin", "any");
    }

    @ParameterizedTest
    @ValueSource(strings = {"api.example.com", "API.Example.COM.", "api.example.com:443", "api.example.com.:443"})
    void match_hostNamingAHostRule_meetsTheRulesOfThatHostAlone(String host) {
        RuleSet rules = rules(rule("api", 1, "/a").host("api.example.com:443").build(),
                rule("admin", 1, "/a").host("admin.example.com:8443").build(), rule("any", 1, "/a").build());

        assertThat(rules.match(TestRequest.get("/a").host(host))).extracting(Rule::id).containsExactly("api", "any");
        assertThat(rules.match(TestRequest.get("/a").host("Admin.example.com.:8443"))).extracting(Rule::id)
                .containsExactly("admin", "any");
    }

    @Test
    void match_getRule_coversHeadAsRoutingDoes() {
        RuleSet rules = rules(rule("get", 1, "/a").methods("GET").build(), rule("post", 1, "/a").methods("POST")
                .build(), rule("head", 1, "/a").methods("HEAD").build());

        assertThat(rules.match(TestRequest.get("/a").method("HEAD"))).extracting(Rule::id)
                .containsExactly("get", "head");
        assertThat(rules.match(TestRequest.get("/a").method("head"))).extracting(Rule::id)
                .containsExactly("get", "head");
        assertThat(rules.match(TestRequest.get("/a").method("GET"))).extracting(Rule::id).containsExactly("get");
        assertThat(rules.rules().get(0).match().methods()).as("as declared").containsExactly("GET");
    }

    @Test
    void match_postWithMethodOverride_meetsTheRulesOfTheMethodItStandsFor() {
        RuleSet rules = rules(rule("delete", 1, "/a").methods("DELETE").build(),
                rule("post", 1, "/a").methods("POST").build());

        assertThat(rules.match(TestRequest.get("/a").method("POST").header("X-HTTP-Method-Override", " delete ")))
                .extracting(Rule::id).containsExactly("delete", "post");
        assertThat(rules.match(TestRequest.get("/a").method("POST").query("_method", "DELETE")))
                .extracting(Rule::id).containsExactly("delete", "post");
        assertThat(rules.match(TestRequest.get("/a").method("POST").header("X-HTTP-Method-Override", "PUT")))
                .extracting(Rule::id).containsExactly("post");
        // Method-override filters turn only a POST into another method.
        assertThat(rules.match(TestRequest.get("/a").method("GET").header("X-HTTP-Method-Override", "DELETE")))
                .isEmpty();
    }

    @Test
    void evaluate_ipKey_countsEachClientSeparately() {
        RuleSet rules = rules(rule("r", 1, "/a").build());

        assertThat(rules.evaluate(TestRequest.get("/a").from("192.0.2.1"), store).allowed()).isTrue();
        assertThat(rules.evaluate(TestRequest.get("/a").from("192.0.2.2"), store).allowed()).isTrue();
        assertThat(rules.evaluate(TestRequest.get("/a").from("::ffff:192.0.2.1"), store).allowed()).isFalse();
    }

    @Test
    void evaluate_ipKeyBehindProxy_spoofedHeaderFromUntrustedPeerDoesNotChangeKey() {
        RuleSet rules = RuleSet.of(List.of(rule("r", 1, "/a").build()),
                ClientAddresses.behindProxies(List.of("10.0.0.0/8"), Header.X_FORWARDED_FOR));

        rules.evaluate(TestRequest.get("/a").from("203.0.113.9").header("X-Forwarded-For", "1.1.1.1"), store);
        Evaluation second = rules.evaluate(
                TestRequest.get("/a").from("203.0.113.9").header("X-Forwarded-For", "2.2.2.2"), store);
        Evaluation viaProxy = rules.evaluate(
                TestRequest.get("/a").from("10.0.0.1").header("X-Forwarded-For", "2.2.2.2"), store);

        assertThat(second.allowed()).isFalse();
        assertThat(second.outcomes().get(0).key()).isEqualTo("203.0.113.9");
        assertThat(viaProxy.allowed()).isTrue();
        assertThat(viaProxy.outcomes().get(0).key()).isEqualTo("2.2.2.2");
    }

    @Test
    void evaluate_eachKeyKind_resolvesItsAttribute() {
        TestRequest request = TestRequest.get("/users/42").header("x-api-key", "k1").cookie("session", "s1")
                .query("token", "q1").principal("alice").from("2001:db8::1");
        record Case(KeySpec key, String expected) {
        }
        List<Case> cases = List.of(new Case(KeySpec.ip(), "2001:db8::/64"),
                new Case(KeySpec.of(KeySpec.Kind.HEADER, "X-API-Key"), "k1"),
                new Case(KeySpec.of(KeySpec.Kind.COOKIE, "session"), "s1"),
                new Case(KeySpec.of(KeySpec.Kind.QUERY, "token"), "q1"), new Case(KeySpec.principal(), "alice"),
                new Case(KeySpec.of(KeySpec.Kind.PATH, "id"), "42"), new Case(KeySpec.constant(), "*"),
                new Case(KeySpec.composite(KeySpec.principal(), KeySpec.ip()), "alice|2001:db8::/64"));
        for (Case c : cases) {
            RuleSet rules = rules(rule("r", 5, "/users/{id}").key(c.key()).build());

            assertThat(rules.evaluate(request, store).outcomes()).singleElement()
                    .satisfies(o -> assertThat(o.key()).as(c.key().toString()).isEqualTo(c.expected()));
        }
    }

    @Test
    void evaluate_pathKeyFromAdapter_usedWhenPatternHasNoSuchVariable() {
        RuleSet rules = rules(rule("r", 5, "/orders/**").key(KeySpec.of(KeySpec.Kind.PATH, "orderId")).build());

        Evaluation evaluation = rules.evaluate(TestRequest.get("/orders/9").pathParameter("orderId", "9"), store);

        assertThat(evaluation.outcomes().get(0).key()).isEqualTo("9");
    }

    @Test
    void evaluate_hostileKeyValues_areEscapedAndBounded() {
        RuleSet rules = rules(rule("r", 5, "/a").key(KeySpec.of(KeySpec.Kind.HEADER, "X-Key")).build());

        String huge = rules.evaluate(TestRequest.get("/a").header("X-Key", "x".repeat(1 << 20)), store)
                .outcomes().get(0).key();
        String pipes = rules.evaluate(TestRequest.get("/a").header("X-Key", "a|b\r\n%"), store).outcomes().get(0).key();

        assertThat(huge).startsWith("sha256:").hasSizeLessThanOrEqualTo(CounterKeys.MAX_PART_LENGTH);
        assertThat(pipes).isEqualTo("a%7cb%0d%0a%25");
    }

    @Test
    void evaluate_missingKey_skipsTheRuleOnlyWhenItSaysSo_orCountsUnderItsFallbackKey() {
        RuleSet skipping = rules(rule("skip", 1, "/a").key(KeySpec.principal()).onMissingKey(OnMissingKey.SKIP)
                .build());
        RuleSet fallback = rules(rule("fallback", 1, "/a").key(KeySpec.principal()).fallbackKey("anonymous").build());

        assertThat(evaluate(skipping, TestRequest.get("/a"), 3).matched()).isFalse();
        Evaluation anonymous = evaluate(fallback, TestRequest.get("/a"), 2);
        assertThat(anonymous.allowed()).isFalse();
        assertThat(anonymous.outcomes().get(0).key()).isEqualTo("anonymous");
    }

    @Test
    void evaluate_missingKeyByDefault_countsEachClientApartFromRealKeyValues() {
        RuleSet rules = rules(rule("api", 1, "/a").key(KeySpec.of(KeySpec.Kind.HEADER, "X-Api-Key")).build());

        Evaluation first = evaluate(rules, TestRequest.get("/a").from("198.51.100.1"), 1);
        Evaluation again = evaluate(rules, TestRequest.get("/a").from("198.51.100.1"), 1);
        Evaluation otherClient = evaluate(rules, TestRequest.get("/a").from("198.51.100.2"), 1);
        Evaluation keyedLikeTheAddress = evaluate(rules, TestRequest.get("/a").from("198.51.100.1")
                .header("X-Api-Key", "198.51.100.1"), 1);

        assertThat(first.allowed()).isTrue();
        assertThat(first.outcomes().get(0).key()).isEqualTo("%missing|198.51.100.1");
        assertThat(again.allowed()).as("leaving the key out gets no request past the limit").isFalse();
        assertThat(otherClient.allowed()).isTrue();
        assertThat(keyedLikeTheAddress.allowed()).as("a real key value never shares the fallback's counter")
                .isTrue();
    }

    @Test
    void evaluate_compositeKeyMadeOfMissingAndAnAddress_neverSpendsThatClientsFallbackCounter() {
        RuleSet rules = rules(rule("api", 1, "/a").key(KeySpec.composite(KeySpec.of(KeySpec.Kind.HEADER, "X-A"),
                KeySpec.of(KeySpec.Kind.HEADER, "X-B"))).build());

        for (String madeUp : List.of("missing", "%missing", "%25missing")) {
            Evaluation attacker = evaluate(rules, TestRequest.get("/a").from("203.0.113.5").header("X-A", madeUp)
                    .header("X-B", "198.51.100.77"), 2);
            assertThat(attacker.allowed()).as(madeUp).isFalse();
        }
        Evaluation victim = rules.evaluate(TestRequest.get("/a").from("198.51.100.77"), store);

        assertThat(victim.allowed()).isTrue();
        assertThat(victim.outcomes().get(0).key()).isEqualTo("%missing|198.51.100.77");
    }

    @Test
    void evaluate_ipv6Clients_areKeyedByTheirSlash64() {
        RuleSet rules = rules(rule("r", 1, "/a").build());

        Evaluation first = rules.evaluate(TestRequest.get("/a").from("2001:db8:1:2:aaaa::1"), store);
        Evaluation rotated = rules.evaluate(TestRequest.get("/a").from("2001:db8:1:2:bbbb:cccc:dddd:eeee"), store);
        Evaluation otherNetwork = rules.evaluate(TestRequest.get("/a").from("2001:db8:1:3::1"), store);
        Evaluation ipv4 = rules.evaluate(TestRequest.get("/a").from("::ffff:192.0.2.9"), store);

        assertThat(first.outcomes().get(0).key()).isEqualTo("2001:db8:1:2::/64");
        assertThat(rotated.allowed()).as("another address of the same /64").isFalse();
        assertThat(otherNetwork.allowed()).isTrue();
        assertThat(otherNetwork.outcomes().get(0).key()).isEqualTo("2001:db8:1:3::/64");
        assertThat(ipv4.outcomes().get(0).key()).isEqualTo("192.0.2.9");
    }

    @ParameterizedTest
    @ValueSource(ints = {128, 56, 1})
    void evaluate_ipv6PrefixSet_keysByThatPrefix(int bits) {
        RuleSet rules = RuleSet.of(List.of(rule("r", 5, "/a").build()), ClientAddresses.direct().withIpv6Prefix(bits));

        String key = rules.evaluate(TestRequest.get("/a").from("2001:db8:1:2ff:aaaa::1"), store).outcomes().get(0)
                .key();

        assertThat(key).isEqualTo(switch (bits) {
            case 128 -> "2001:db8:1:2ff:aaaa::1";
            case 56 -> "2001:db8:1:200::/56";
            default -> "::/1";
        });
    }

    @Test
    void evaluate_exemptIpv6Address_exemptsTheSlash64ItIsKeyedBy() {
        RuleSet rules = rules(rule("r", 1, "/a").exemptAddresses(List.of("2001:db8:1:2::1", "10.0.0.1")).build());
        RuleSet wholeAddresses = RuleSet.of(rules.rules(), ClientAddresses.direct().withIpv6Prefix(128));

        assertThat(evaluate(rules, TestRequest.get("/a").from("2001:db8:1:2:ffff::9"), 3).matched()).isFalse();
        assertThat(evaluate(rules, TestRequest.get("/a").from("2001:db8:1:3::1"), 2).allowed()).isFalse();
        assertThat(evaluate(rules, TestRequest.get("/a").from("10.0.0.2"), 2).allowed()).as("IPv4 stays exact")
                .isFalse();
        assertThat(evaluate(wholeAddresses, TestRequest.get("/a").from("2001:db8:1:2::1"), 3).matched()).isFalse();
        assertThat(evaluate(wholeAddresses, TestRequest.get("/a").from("2001:db8:1:2::2"), 1).matched()).isTrue();
    }

    @Test
    void configuredIpKeyValues_anIpv6Address_standForItsClientsKey() {
        RuleSet rules = rules(rule("r", 1, "/a").exemptKeys(List.of("2001:DB8:1:2::1")).build(),
                rule("pair", 1, "/b").key(KeySpec.composite(KeySpec.principal(), KeySpec.ip())).build());

        assertThat(evaluate(rules, TestRequest.get("/a").from("2001:db8:1:2::9"), 3).matched()).isFalse();
        assertThat(overriddenKey(rules, "r", "2001:db8:1:2:0:0:0:7")).isEqualTo("2001:db8:1:2::/64");
        assertThat(overriddenKey(rules, "pair", "alice|2001:db8:1:2::7")).isEqualTo("alice|2001:db8:1:2::/64");
        assertThat(overriddenKey(rules, "r", "not|an address")).isEqualTo("not%7can address");
    }

    /** The key of an override of {@code key} under rule {@code ruleId}, as {@code rules} apply it. */
    private static String overriddenKey(RuleSet rules, String ruleId, String key) {
        return rules.check(LimitOverride.forKey(ruleId, key).blocked().lasting(Duration.ofMinutes(1)).reason("abuse")
                .setBy("ops").build(Instant.parse("2026-01-01T00:00:00Z"))).key().orElseThrow();
    }

    @Test
    void build_skipWithAFallbackKey_isRefused() {
        assertThatThrownBy(() -> rule("r", 1, "/a").key(KeySpec.principal()).onMissingKey(OnMissingKey.SKIP)
                .fallbackKey("anonymous").build()).hasMessageContaining("fallbackKey");
    }

    @Test
    void evaluate_exemptCidrsAndKeys_areNotCounted() {
        RuleSet rules = rules(rule("r", 1, "/a").exemptAddresses(List.of("192.0.2.0/24", "2001:db8::/32"))
                .key(KeySpec.of(KeySpec.Kind.HEADER, "X-Key")).fallbackKey("none").exemptKeys(List.of("ops")).build());

        assertThat(evaluate(rules, TestRequest.get("/a").from("192.0.2.200"), 3).matched()).isFalse();
        assertThat(evaluate(rules, TestRequest.get("/a").from("2001:db8:5::1"), 3).matched()).isFalse();
        assertThat(evaluate(rules, TestRequest.get("/a").header("X-Key", "ops"), 3).matched()).isFalse();
        assertThat(evaluate(rules, TestRequest.get("/a").header("X-Key", "dev"), 2).allowed()).isFalse();
    }

    @Test
    void evaluate_multiLimitRule_everyLimitMustPassAndIsNamed() {
        Rule rule = Rule.builder("search").paths("/search")
                .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(2, Duration.ofSeconds(1)).named("burst"),
                        Limit.of(3, Duration.ofDays(1)).named("daily")))
                .build();
        RuleSet rules = rules(rule);

        Evaluation second = evaluate(rules, TestRequest.get("/search"), 2);
        Evaluation third = rules.evaluate(TestRequest.get("/search"), store);
        time.advance(Duration.ofSeconds(1));
        rules.evaluate(TestRequest.get("/search"), store);
        time.advance(Duration.ofSeconds(1));
        Evaluation fifth = rules.evaluate(TestRequest.get("/search"), store);

        assertThat(second.allowed()).isTrue();
        assertThat(third.allowed()).isFalse();
        assertThat(third.limiting().orElseThrow().decision().limitName()).isEqualTo("burst");
        assertThat(fifth.allowed()).isFalse();
        assertThat(fifth.limiting().orElseThrow().decision().limitName()).isEqualTo("daily");
    }

    @Test
    void evaluate_tiers_chooseLimitsByAttribute() {
        Rule rule = rule("api", 1, "/a").key(KeySpec.principal())
                .tierKey(KeySpec.of(KeySpec.Kind.HEADER, "X-Plan"))
                .tier("premium", perMinute(10)).build();
        RuleSet rules = rules(rule);

        Evaluation free = evaluate(rules, TestRequest.get("/a").principal("f"), 2);
        Evaluation unknownTier = evaluate(rules, TestRequest.get("/a").principal("u").header("X-Plan", "gold"), 2);
        Evaluation premium = evaluate(rules, TestRequest.get("/a").principal("p").header("X-Plan", "premium"), 10);

        assertThat(free.allowed()).isFalse();
        assertThat(unknownTier.allowed()).isFalse();
        assertThat(premium.allowed()).isTrue();
        assertThat(premium.limiting().orElseThrow().decision().limit()).isEqualTo(10);
        assertThat(rules.evaluate(TestRequest.get("/a").principal("p").header("X-Plan", "premium"), store).allowed())
                .isFalse();
    }

    /** Configured values are compared the way request keys are made: escaped ("%", "|") and bounded. */
    @Test
    void evaluate_exemptKeysAndTierValuesWithEscapedCharacters_matchTheRequestsValues() {
        String longPlan = "p".repeat(CounterKeys.MAX_PART_LENGTH + 1);
        Rule rule = rule("api", 1, "/a").key(KeySpec.composite(KeySpec.principal(),
                        KeySpec.of(KeySpec.Kind.HEADER, "X-Team")))
                .exemptKeys(List.of("ops|50%"))
                .tierKey(KeySpec.of(KeySpec.Kind.HEADER, "X-Plan"))
                .tier("gold|plus", perMinute(10))
                .tier(longPlan, perMinute(20)).build();
        RuleSet rules = rules(rule);

        assertThat(rules.evaluate(TestRequest.get("/a").principal("ops").header("X-Team", "50%"), store)
                .outcomes()).as("exempt: the composite of \"ops\" and \"50%\"").isEmpty();
        assertThat(rules.evaluate(TestRequest.get("/a").principal("ops|50").header("X-Team", "%"), store)
                .outcomes()).as("not exempt: another split of the same text").hasSize(1);
        assertThat(evaluate(rules, TestRequest.get("/a").principal("g").header("X-Team", "t")
                .header("X-Plan", "gold|plus"), 1).limiting().orElseThrow().decision().limit()).isEqualTo(10);
        assertThat(evaluate(rules, TestRequest.get("/a").principal("l").header("X-Team", "t")
                .header("X-Plan", longPlan), 1).limiting().orElseThrow().decision().limit()).isEqualTo(20);
    }

    @Test
    void evaluate_shadowRule_countsAndReportsButNeverRejects() {
        RuleSet rules = rules(rule("trial", 1, "/a").mode(Mode.SHADOW).build());

        Evaluation second = evaluate(rules, TestRequest.get("/a"), 2);

        assertThat(second.allowed()).isTrue();
        assertThat(second.shadowOnly()).isTrue();
        assertThat(second.shadowRejected()).isTrue();
        assertThat(second.limiting()).isEmpty();
        assertThat(second.reported().orElseThrow().decision().allowed()).isFalse();
    }

    @Test
    void evaluate_severalRules_eachCountsAndMostRestrictiveWinsWithItsResponse() {
        RuleSet rules = rules(rule("wide", 100, "/api/**").build(),
                rule("narrow", 1, "/api/pay").response(new RuleResponse(503, "slow down")).build(),
                rule("shadow", 1, "/api/**").mode(Mode.SHADOW).build());

        Evaluation second = evaluate(rules, TestRequest.get("/api/pay"), 2);

        assertThat(second.outcomes()).extracting(o -> o.rule().id()).containsExactly("wide", "narrow", "shadow");
        assertThat(second.allowed()).isFalse();
        assertThat(second.shadowOnly()).isFalse();
        assertThat(second.limiting().orElseThrow().rule().id()).isEqualTo("narrow");
        assertThat(second.response()).contains(new RuleResponse(503, "slow down"));
        // The rejected second request is taken back from the rule that granted it: only the first one counts.
        assertThat(second.outcomes().get(0).decision().remaining()).isEqualTo(99);
    }

    @Test
    void evaluate_severalMultiLimitRules_applyTheStoreOncePerRule() {
        List<String> appliedKeys = new java.util.ArrayList<>();
        CounterStore counting = new CounterStore() {
            @Override
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                if (command instanceof Command.Admission) {
                    appliedKeys.add(key);
                }
                return store.executeAsync(key, command);
            }

            @Override
            public void close() {
            }
        };
        RuleSet rules = rules(rule("a", 5, "/x").policy(Policy.of(Algorithm.TOKEN_BUCKET,
                        Limit.of(5, Duration.ofMinutes(1)), Limit.of(50, Duration.ofDays(1)))).build(),
                rule("b", 5, "/x").key(KeySpec.constant()).build(), rule("other", 5, "/y").build());

        Evaluation evaluation = rules.evaluate(TestRequest.get("/x").from("192.0.2.1"), counting);

        assertThat(appliedKeys).hasSize(2).allSatisfy(key -> assertThat(key).matches("(a|b)@[0-9a-f]{12}\\|.*"));
        assertThat(evaluation.outcomes()).extracting(RuleDecision::counterKey).containsExactlyElementsOf(appliedKeys);
        assertThat(evaluation.response()).isEmpty();
    }

    @Test
    void evaluate_leakyBucketWithMaxDelay_reportsDelayAndMaxDelay() {
        Rule rule = Rule.builder("queue").paths("/q")
                .policy(Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(1, Duration.ofSeconds(1)).withCapacity(3)))
                .maxDelay(Duration.ofSeconds(2)).build();
        RuleSet rules = rules(rule);

        Evaluation second = evaluate(rules, TestRequest.get("/q"), 2);

        assertThat(second.allowed()).isTrue();
        assertThat(second.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(second.maxDelay()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void evaluate_costAboveOne_consumesThatMany() {
        RuleSet rules = rules(rule("export", 10, "/export").cost(4).build());

        Evaluation second = evaluate(rules, TestRequest.get("/export"), 2);

        assertThat(second.outcomes().get(0).decision().remaining()).isEqualTo(2);
        assertThat(rules.evaluate(TestRequest.get("/export"), store).allowed()).isFalse();
    }

    @Test
    void of_duplicateIds_isAnError() {
        assertThatThrownBy(() -> rules(rule("a", 1, "/a").build(), rule("a", 1, "/b").build()))
                .isInstanceOf(RulesException.class).hasMessageContaining("duplicate rule id 'a'");
    }

    @Test
    void builder_impossibleValues_areErrors() {
        assertThatThrownBy(() -> rule("a", 1, "/a").cost(2).build())
                .hasMessage("cost: expected an integer between 1 and 1, got 2");
        assertThatThrownBy(() -> rule("a", 1, "a/b").build()).hasMessageContaining("must start with \"/\"");
        assertThatThrownBy(() -> rule("a", 1, "/a/**/b").build()).hasMessageContaining("may only be its last");
        assertThatThrownBy(() -> rule("a b", 1, "/a").build()).hasMessageContaining("expected an id");
        assertThatThrownBy(() -> Rule.builder("w").paths("/w").policy(Policy.of(Algorithm.FIXED_WINDOW,
                Limit.of(5, Duration.ofSeconds(1)).withCapacity(10))).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withResourceMethods_sharesTheParsedDefinitionInsteadOfBuildingItAgain() throws NoSuchMethodException {
        Rule declared = rule("r", 5, "/a/{id}").host("*.example.com").exemptAddresses(List.of("10.0.0.0/8")).build();
        Method method = Object.class.getMethod("toString");

        Rule merged = declared.withResourceMethods(List.of(method));

        assertThat(merged.match().resourceMethods()).containsExactly(method);
        assertThat(declared.match().resourceMethods()).isEmpty();
        assertThat(merged.match().pathPatterns()).isSameAs(declared.match().pathPatterns());
        assertThat(merged.match().host().orElseThrow()).isSameAs(declared.match().host().orElseThrow());
        assertThat(merged.key().exemptRanges()).isSameAs(declared.key().exemptRanges());
        assertThat(merged.requestLimits().orElseThrow().defaults()).isSameAs(declared.requestLimits()
                .orElseThrow().defaults());
    }

    /** Leasing changes how permits are handed out, not what is counted: turning it on keeps the rule's counters. */
    @Test
    void counterKey_leaseTurnedOnByAReload_isTheSameSoCountingGoesOn() {
        String unleased = """
                {"rules": [{"id": "r", "match": {"paths": ["/a"]}, "limits": [{"permits": 5, "period": "1m"}]}]}
                """;
        RulesFile before = RulesFile.parse("rules.json", unleased);
        RulesFile after = RulesFile.parse("rules.json", unleased.replace("\"limits\"", "\"lease\": true, \"limits\""));

        String counterBefore = RuleSet.combine(before, List.of()).evaluate(TestRequest.get("/a"), store).outcomes()
                .get(0).counterKey();
        String counterAfter = RuleSet.combine(after, List.of()).evaluate(TestRequest.get("/a"), store).outcomes()
                .get(0).counterKey();

        assertThat(after.rules().get(0).requestLimits().orElseThrow().defaults().leased()).isTrue();
        assertThat(counterAfter).isEqualTo(counterBefore);
    }

    /** The file rule that takes over an annotation is compiled once, with its own counters, for paths and methods. */
    @Test
    void combine_fileRuleTakingOverAnAnnotation_countsPathAndMethodUnderTheFileRulesCounter()
            throws NoSuchMethodException {
        RulesFile file = RulesFile.parse("rules.json", """
                {"rules": [{"id": "r", "match": {"paths": ["/a"]}, "limits": [{"permits": 1, "period": "1m"}]}]}
                """);
        Method method = Object.class.getMethod("toString");
        Rule namingTheFileRule = Rule.builder("r").resourceMethods(List.of(method)).build();
        Rule fileRule = file.rules().get(0);

        RuleSet rules = RuleSet.combine(file, List.of(namingTheFileRule));
        Evaluation byPath = rules.evaluate(TestRequest.get("/a"), store);
        Evaluation byMethod = rules.evaluate(TestRequest.get("/elsewhere").routedTo(method), store);

        assertThat(rules.rules().get(0).requestLimits().orElseThrow().defaults())
                .isSameAs(fileRule.requestLimits().orElseThrow().defaults());
        assertThat(byPath.outcomes().get(0).counterKey())
                .startsWith(CounterKeys.prefix("r", fileRule.requestLimits().orElseThrow().defaults()))
                .isEqualTo(byMethod.outcomes().get(0).counterKey());
        assertThat(byMethod.allowed()).isFalse();
    }

    @Test
    void idOfCounterKey_keyOfNoRule_isEmpty() {
        assertThat(CounterKeys.idOf("login@0123456789ab|203.0.113.9")).hasValue("login");
        assertThat(CounterKeys.idOf("203.0.113.9")).isEmpty();
        assertThat(CounterKeys.idOf("ada@example.com")).isEmpty();
        assertThat(CounterKeys.idOf("sluice-client|github|api.github.com")).isEmpty();
    }

    @Test
    void evaluate_thousandRules_matchesOnlyTheRelevantOnes() {
        List<Rule> many = IntStream.range(0, 1000)
                .mapToObj(i -> rule("r" + i, 5, "/svc" + i + "/items/{id}", "/svc" + i + "/admin/**").build()).toList();
        RuleSet rules = RuleSet.of(many, ClientAddresses.direct());

        assertThat(rules.match(TestRequest.get("/svc517/items/3"))).extracting(Rule::id).containsExactly("r517");
        assertThat(rules.match(TestRequest.get("/svc999/admin/x/y"))).extracting(Rule::id).containsExactly("r999");
        assertThat(rules.match(TestRequest.get("/svc1000/items/3"))).isEmpty();
    }
}
