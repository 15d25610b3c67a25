/**
 * Inbound throughput of room messages: a JMH benchmark in memory ({@link
 * dev.ddpkit.bench.throughput.InboundBenchmark}) and an end-to-end run over loopback side by side
 * with Node DDP clients ({@link dev.ddpkit.bench.throughput.EndToEndThroughput}); see
 * {@code scripts/bench-throughput.sh}.
 */
package dev.ddpkit.bench.throughput;
