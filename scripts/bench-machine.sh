#!/usr/bin/env bash
# Prints the machine a benchmark runs on: cores, memory, JVM, load. Sourced by the bench scripts.
echo "== machine: $(date -u +%FT%TZ)"
echo "nproc: $(nproc)"
free -g
java -version 2>&1
echo "uptime: $(uptime)"
