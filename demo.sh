#!/usr/bin/env bash
# Builds the demo web application (Maven, tests skipped) and runs it on http://127.0.0.1:8080/.
# Options go to the launcher; ./demo.sh --help lists them.
set -euo pipefail
cd "$(dirname "$0")"

# What Hazelcast asks of the module system (the same list as sluice.test.argLine in pom.xml, see docs/cluster.md):
# without them the embedded member warns at every start and runs without some of its optimisations.
HAZELCAST_JVM_OPTIONS=(--add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
    --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.management/sun.management=ALL-UNNAMED
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED)

# Maven's full log goes to a file; the terminal gets one line per module and a count of the files downloaded, so that
# the first build (which downloads about 140 MB into the local Maven repository) is not silent for minutes.
log=$(mktemp "${TMPDIR:-/tmp}/sluice-demo-build.XXXXXX")
echo "Building the demo with Maven (tests skipped; full log in $log)."
echo "The first build downloads about 140 MB of dependencies and takes a few minutes; later ones take seconds."
started=$SECONDS
if ! mvn -B -pl demo-webapp -am package -DskipTests 2>&1 | tee "$log" | awk '
    /^\[INFO\] Building .*\[[0-9]+\/[0-9]+\]$/ {
        module = $0
        sub(/^\[INFO\] Building /, "", module)
        step = module
        sub(/^.*\[/, "[", step)
        sub(/ +\[[0-9]+\/[0-9]+\]$/, "", module)
        printf "  %s %s\n", step, module
        fflush()
    }
    /^(\[INFO\] )?Downloaded from / {
        downloads++
        size = $0
        sub(/.*\(/, "", size)
        split(size, amount, " ")
        kilobytes += amount[1] * (amount[2] == "MB" ? 1000 : amount[2] == "kB" ? 1 : 0.001)
        if (downloads % 100 == 0) {
            printf "    %d files (%.0f MB) downloaded so far\n", downloads, kilobytes / 1000
            fflush()
        }
    }
    END {
        if (downloads > 0) {
            printf "  %d files (%.0f MB) downloaded\n", downloads, kilobytes / 1000
        }
    }'; then
    echo "The build failed; the end of Maven's log ($log):" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
echo "Built in $((SECONDS - started)) s; starting the demo."
rm -f "$log"
exec java "${HAZELCAST_JVM_OPTIONS[@]}" -cp 'demo-webapp/target/lib/*' dev.sluice.demo.launcher.DemoLauncher "$@"
