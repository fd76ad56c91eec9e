package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.OperationsGuard.Verdict;
import org.junit.jupiter.api.Test;

class OperationsGuardTest {

    private static final String TOKEN = "a-token-of-sixteen-chars";

    @Test
    void check_neitherTokenNorRole_isOff() {
        OperationsGuard guard = new OperationsGuard(null, null);

        assertThat(guard.check("Bearer " + TOKEN, true, role -> true)).isEqualTo(Verdict.OFF);
        assertThat(guard.describe()).isEqualTo("off");
    }

    @Test
    void check_token_allowsTheTokenInAnyCaseOfBearerAndRefusesOthers() {
        OperationsGuard guard = new OperationsGuard(TOKEN, null);

        assertThat(guard.check("Bearer " + TOKEN, false, role -> false)).isEqualTo(Verdict.ALLOWED);
        assertThat(guard.check("bearer " + TOKEN + " ", false, role -> false)).isEqualTo(Verdict.ALLOWED);
        assertThat(guard.check("Bearer wrong", false, role -> false)).isEqualTo(Verdict.UNAUTHORIZED);
        assertThat(guard.check(null, true, role -> true)).isEqualTo(Verdict.UNAUTHORIZED);
        assertThat(guard.challenge("Bearer", "r")).isEqualTo("Bearer");
    }

    @Test
    void check_roleAlone_allowsMembersForbidsOthersAndChallengesTheAnonymous() {
        OperationsGuard guard = new OperationsGuard(null, "ops");

        assertThat(guard.check(null, true, "ops"::equals)).isEqualTo(Verdict.ALLOWED);
        assertThat(guard.check(null, true, role -> false)).isEqualTo(Verdict.FORBIDDEN);
        assertThat(guard.check(null, false, role -> false)).isEqualTo(Verdict.UNAUTHORIZED);
        assertThat(guard.challenge("Bearer", "r")).isEqualTo("Basic realm=\"r\"");
        assertThat(guard.describe()).isEqualTo("on (role 'ops')");
    }

    @Test
    void check_tokenAndRole_anAuthenticatedUserOutsideTheRoleIsAskedForTheToken() {
        OperationsGuard guard = new OperationsGuard(TOKEN, "ops");

        assertThat(guard.check(null, true, role -> false)).isEqualTo(Verdict.UNAUTHORIZED);
        assertThat(guard.describe()).isEqualTo("on (bearer token or role 'ops')");
    }
}
