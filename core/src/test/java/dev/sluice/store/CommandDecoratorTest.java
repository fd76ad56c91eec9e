package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command, through every store in front of another: each answers as the store behind it does, so no decorator
 * misses an operation. The commands are every record {@link Command} permits, found by reflection: a command added
 * without a step here fails {@link #execute_everyCommandWaitedForOrNot_answersAsTheStoreBehind}. Both ways in are
 * asked: a decorator may answer {@code execute} on a path of its own.
 */
class CommandDecoratorTest {

    private static final Policy BUCKET = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofMinutes(1)));
    private static final Policy QUEUE = Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(2, Duration.ofSeconds(1)));
    private static final ConcurrencyLimit TWO = ConcurrencyLimit.of(2).named("two");

    static Stream<Arguments> decorators() {
        Duration wait = Duration.ofSeconds(5);
        return Stream.of(
                Arguments.of("left open", (Function<CounterStore, CounterStore>) LeftOpenStore::new),
                Arguments.of("rejection cache", (Function<CounterStore, CounterStore>) store ->
                        new RejectionCachingStore(store, new ManualTimeSource(), 100)),
                Arguments.of("failure policy allow", (Function<CounterStore, CounterStore>) store ->
                        FailurePolicyStore.allowing(store, wait)),
                Arguments.of("failure policy fallback", (Function<CounterStore, CounterStore>) store ->
                        FailurePolicyStore.fallingBackTo(store, wait, new LocalCounterStore())),
                Arguments.of("stack", (Function<CounterStore, CounterStore>) store ->
                        CounterStores.of(store).leaveStoreOpen().build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decorators")
    void execute_everyCommandWaitedForOrNot_answersAsTheStoreBehind(String name,
                                                                     Function<CounterStore, CounterStore> wrap) {
        for (boolean waiting : new boolean[] {true, false}) {
            ManualTimeSource time = new ManualTimeSource();
            LocalCounterStore alone = new LocalCounterStore(time, 100, Runnable::run);
            LocalCounterStore behind = new LocalCounterStore(time, 100, Runnable::run);
            CounterStore wrapped = wrap.apply(behind);

            Steps direct = new Steps(alone, waiting);
            Steps through = new Steps(wrapped, waiting);

            assertThat(through.answers).as(waiting ? "execute" : "executeAsync")
                    .containsExactlyElementsOf(direct.answers);
            assertThat(through.executed).isEqualTo(everyCommand());
        }
    }

    /** The commands there are: the records {@link Command} permits, through its sealed sub-interfaces. */
    private static Set<Class<?>> everyCommand() {
        return leaves(Command.class).collect(Collectors.toSet());
    }

    private static Stream<Class<?>> leaves(Class<?> type) {
        Class<?>[] permitted = type.getPermittedSubclasses();
        return permitted == null ? Stream.of(type) : Stream.of(permitted).flatMap(CommandDecoratorTest::leaves);
    }

    /**
     * One of each command on one store, waited for or not, in an order that gives settles and releases ids; the
     * answers, as text.
     */
    private static final class Steps {
        final List<String> answers = new ArrayList<>();
        final Set<Class<?>> executed = new HashSet<>();
        private final CounterStore store;
        private final boolean waiting;

        Steps(CounterStore store, boolean waiting) {
            this.store = store;
            this.waiting = waiting;
            answer(Command.decide(BUCKET, 1, 0));
            // Twice: the second waits for its slot (500 ms), which a decorator that drops the wait would refuse.
            answer(Command.decide(QUEUE, 1, Duration.ofSeconds(2).toNanos()));
            answer(Command.decide(QUEUE, 1, Duration.ofSeconds(2).toNanos()));
            Counted counted = answer(Command.count(BUCKET, 1, 0));
            answers.add("given back " + counted.giveBack().toCompletableFuture().join());
            Counted reserved = answer(Command.estimate(BUCKET, 1, 0));
            answer(Command.settle(BUCKET, 1, 2, reserved.reservation().orElseThrow()));
            answer(Command.peek(BUCKET, 0));
            answer(Command.record(BUCKET, 1, 0));
            answer(Command.reserve(QUEUE, 1, Duration.ofSeconds(3).toNanos()));
            Counted permit = answer(Command.acquire(TWO));
            answer(Command.release(TWO, permit.permit().orElseThrow()));
            answer(Command.reset());
            answer(Command.peek(BUCKET, 0));
        }

        private <R> R answer(Command<R> command) {
            executed.add(command.getClass());
            R answer = waiting ? store.execute("k", command)
                    : store.executeAsync("k", command).toCompletableFuture().join();
            Object shown = answer instanceof Counted counted ? describe(counted) : answer;
            answers.add(command.getClass().getSimpleName() + " -> " + shown);
            return answer;
        }

        private static String describe(Counted counted) {
            Decision decision = counted.decision();
            return decision + (counted.permit().isPresent() ? " permit" : "")
                    + (counted.reservation().isPresent() ? " reservation" : "");
        }
    }
}
