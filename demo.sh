#!/usr/bin/env bash
# Builds the demo web application (Maven, tests skipped) and runs it on http://127.0.0.1:8080/.
# Options go to the launcher; ./demo.sh --help lists them.
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q -pl demo-webapp -am package -DskipTests
exec java -cp 'demo-webapp/target/lib/*' dev.sluice.demo.launcher.DemoLauncher "$@"
