#!/bin/sh
# Starts one Hazelcast member that Sluice applications reach as clients (store=hazelcast-client): Hazelcast with
# Sluice's jars (lib/) and a member file.
#
#   bin/start-member.sh [member-file]
#
# member-file: the member's configuration, config/hazelcast-member.yaml beside bin/ unless given. JAVA_OPTS adds JVM
# options (a heap size, for one: JAVA_OPTS=-Xmx2g); JAVA_HOME picks the Java (17 or later), else java on the PATH.
# Runs in the foreground; stop it with Ctrl-C or SIGTERM.
set -eu
home=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-"$home/config/hazelcast-member.yaml"}
java=java
if [ -n "${JAVA_HOME:-}" ]; then
    java="$JAVA_HOME/bin/java"
fi
# The module options are the ones Hazelcast asks for on Java 17, for its metrics and networking.
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
exec "$java" ${JAVA_OPTS:-} \
    --add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens java.management/sun.management=ALL-UNNAMED \
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
    -Dhazelcast.config="$config" -cp "$home/lib/*" com.hazelcast.core.server.HazelcastMemberStarter
