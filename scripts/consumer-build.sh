#!/usr/bin/env bash
# The consumer build (issue 13): a project outside the reactor (consumer/) that depends on
# dev.ddpkit:ddp-client and dev.ddpkit:chat-client by their Maven coordinates compiles README.md's
# DDP example and a chat example (log in, join a room, send a message), runs both against the
# embedded server (java -jar ddpkit.jar serve), and fails if the libraries bring a test library,
# a logging backend, the chat server or the app into its dependency tree (maven-enforcer's
# bannedDependencies).
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

if [[ ! -f ddp-client/target/ddp-client-$VERSION.jar || ! -f chat-sample/chat-client/target/chat-client-$VERSION.jar
      || ! -f chat-sample/target/ddpkit.jar ]]; then
  echo "consumer build: packaging the modules first (run after mvn -B verify to skip this)"
  mvn -B -q package -pl chat-sample/chat-app -am -DskipTests
fi
rm -rf "$REPO/dev/ddpkit"
echo "consumer build: installing ddpkit-parent and the client-side libraries $VERSION into $REPO"
"${MVN[@]}" -q "$INSTALL" -Dfile=pom.xml -DpomFile=pom.xml
for m in reconnection-manager ddp-client chat-sample/chat-protocol chat-sample/chat-client; do
  a="${m##*/}"
  "${MVN[@]}" -q "$INSTALL" -Dfile="$m/target/$a-$VERSION.jar" -DpomFile="$m/pom.xml"
done
echo "consumer build: building consumer/ against dev.ddpkit:ddp-client and chat-client $VERSION by coordinates"
"${MVN[@]}" -f consumer/pom.xml verify -Dddpkit.version="$VERSION"
