#!/usr/bin/env bash
# The long reliability runs that do not fit in `mvn -B verify`: the rules-file fuzzer at full count, the limiter
# service's parameter fuzzer at full count, then the soak with a million distinct keys. About 18 minutes on 2 cores;
# RELIABILITY.md holds the figures of a run.
#   FUZZ_CASES (default 100000), FUZZ_SEED (default 9), SERVICE_FUZZ_CASES (default 100000), SERVICE_FUZZ_SEED
#   (default 38), SOAK_MINUTES (default 10), SOAK_KEYS (default 1000000)
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q -pl benchmarks -am package -DskipTests
mvn -B -pl core verify -Dtest=RulesFileFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dsluice.fuzz.cases="${FUZZ_CASES:-100000}" -Dsluice.fuzz.seed="${FUZZ_SEED:-9}"
mvn -B -pl limiter-service -am test -Dtest=ServiceFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dsluice.fuzz.service.cases="${SERVICE_FUZZ_CASES:-100000}" -Dsluice.fuzz.service.seed="${SERVICE_FUZZ_SEED:-38}"
java -Xmx2g -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.SoakRun "${SOAK_MINUTES:-10}" \
    "${SOAK_KEYS:-1000000}"
