#!/usr/bin/env bash
# The consumer build (issue 13): a project outside the reactor (consumer/) that depends on
# dev.ddpkit:ddp-client by its Maven coordinates compiles README.md's DDP example, runs it against
# the embedded server (java -jar ddpkit.jar serve), and fails if the libraries bring a test
# library or a logging backend into its dependency tree (maven-enforcer's bannedDependencies).
#
# It consumes the jars that `mvn -B verify` just built (CI runs it right after; it packages them
# first if they are missing). They are installed, with their poms, into a throwaway local
# repository (target/consumer-m2), never into ~/.m2; consumer/settings.xml lets that repository
# read what ~/.m2 already holds and fetch anything else from Maven Central.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
REPO="$ROOT/target/consumer-m2"
MVN=(mvn -B -s "$ROOT/consumer/settings.xml" -Dmaven.repo.local="$REPO")
# The project's version: the first <version> of the parent pom is its own.
VERSION="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)"
INSTALL=org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file

if [[ ! -f ddp-client/target/ddp-client-$VERSION.jar || ! -f chat-sample/target/ddpkit.jar ]]; then
  echo "consumer build: packaging the modules first (run after mvn -B verify to skip this)"
  mvn -B -q package -pl chat-sample/chat-app -am -DskipTests
fi
rm -rf "$REPO/dev/ddpkit"
echo "consumer build: installing ddpkit-parent, reconnection-manager and ddp-client $VERSION into $REPO"
"${MVN[@]}" -q "$INSTALL" -Dfile=pom.xml -DpomFile=pom.xml
for m in reconnection-manager ddp-client; do
  "${MVN[@]}" -q "$INSTALL" -Dfile="$m/target/$m-$VERSION.jar" -DpomFile="$m/pom.xml"
done
echo "consumer build: building consumer/ against dev.ddpkit:ddp-client:$VERSION by coordinates"
"${MVN[@]}" -f consumer/pom.xml verify -Dddpkit.version="$VERSION"
