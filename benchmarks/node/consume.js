#!/usr/bin/env node
// A Node DDP consumer of one room's stream-room-messages, run side by side with ddpkit's
// ChatClient by dev.ddpkit.bench.throughput.EndToEndThroughput (scripts/bench-throughput.sh).
//
// It logs in with the SHA-256 digest of the password, subscribes to the room's stream as
// Rocket.Chat clients do, and for every `changed` event of the room: reads the message, drops a
// second copy of an _id it has already delivered (the same work as ddpkit's RoomTimeline) and
// counts it as delivered. Two client libraries, chosen with --lib:
//   ddp     ddp 0.12.1 (faye-websocket): the library parses each frame (EJSON) for its own
//           bookkeeping, and a stream consumer reads its raw 'message' event, as Rocket.Chat
//           scripts built on it do, so each frame is parsed twice (the second time with JSON.parse).
//   ddp.js  ddp.js 2.2.1 over ws: one JSON.parse per frame, events re-emitted on a timer tick.
//
// Protocol with the coordinator, one line each on stdout:
//   READY <lib>                                         subscribed, the stream is live
//   REACHED <target> <epochMs> <firstEpochMs> <cpuMs> <duplicates>
//       when the delivered count reaches each --targets value: the time it did, the time the
//       first message after the previous target arrived, the process CPU time so far, and the
//       duplicate _ids dropped so far. Times are epoch milliseconds with a fraction.
// It exits after the last target, or when stdin closes (the coordinator is gone).
"use strict";

const crypto = require("crypto");
const { performance } = require("perf_hooks");

const STREAM = "stream-room-messages";

function parseArgs(argv) {
  const args = { lib: "ddp", targets: [] };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    const value = argv[i + 1];
    if (value === undefined) {
      throw new Error("missing value for " + argv[i]);
    }
    args[key] = key === "targets" ? value.split(",").map(Number) : value;
  }
  for (const required of ["url", "user", "password", "room"]) {
    if (!args[required]) {
      throw new Error("--" + required + " is required");
    }
  }
  if (args.targets.length === 0 || args.targets.some((t) => !(t > 0))) {
    throw new Error("--targets must list positive counts");
  }
  return args;
}

const nowMs = () => performance.timeOrigin + performance.now();
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function makeCounter(args, done) {
  const seen = new Set();
  const targets = args.targets.slice();
  let delivered = 0;
  let duplicates = 0;
  let firstOfPhase = 0;
  return function onMessage(doc) {
    if (!doc || typeof doc._id !== "string" || doc.rid !== args.room) {
      return;
    }
    if (seen.has(doc._id)) {
      duplicates++;
      return;
    }
    seen.add(doc._id);
    if (firstOfPhase === 0) {
      firstOfPhase = nowMs();
    }
    delivered++;
    if (delivered === targets[0]) {
      targets.shift();
      process.stdout.write(
        ["REACHED", delivered, nowMs().toFixed(3), firstOfPhase.toFixed(3),
          cpuMs().toFixed(1), duplicates].join(" ") + "\n");
      firstOfPhase = 0;
      if (targets.length === 0) {
        done();
      }
    }
  };
}

function loginParams(args) {
  const digest = crypto.createHash("sha256").update(args.password, "utf8").digest("hex");
  return [{ user: { username: args.user }, password: { digest: digest, algorithm: "sha-256" } }];
}

let finishing = false;

function fail(what) {
  if (finishing) {
    return; // our own close after the last target
  }
  process.stderr.write("consume.js: " + what + "\n");
  process.exit(2);
}

function runDdp(args, deliver, ready) {
  const DDPClient = require("ddp");
  const client = new DDPClient({
    url: args.url,
    autoReconnect: false,
    maintainCollections: true,
    ddpVersion: "1",
  });
  client.on("message", (raw) => {
    const m = JSON.parse(raw);
    if (m.msg === "changed" && m.collection === STREAM && m.fields
        && m.fields.eventName === args.room && Array.isArray(m.fields.args)) {
      deliver(m.fields.args[0]);
    }
  });
  client.on("socket-close", (code) => fail("socket closed " + code));
  client.connect((error) => {
    if (error) {
      fail("connect failed: " + error);
    }
    client.call("login", loginParams(args), (err) => {
      if (err) {
        fail("login failed: " + JSON.stringify(err));
      }
      client.subscribe(STREAM, [args.room, { useCollection: false, args: [] }], () => ready());
    });
  });
  return () => client.close();
}

function runDdpJs(args, deliver, ready) {
  const DDP = require("ddp.js").default;
  const WebSocket = require("ws");
  const ddp = new DDP({ endpoint: args.url, SocketConstructor: WebSocket, autoReconnect: false });
  let loginId = null;
  let subId = null;
  ddp.on("connected", () => {
    loginId = ddp.method("login", loginParams(args));
  });
  ddp.on("result", (m) => {
    if (m.id !== loginId) {
      return;
    }
    if (m.error) {
      fail("login failed: " + JSON.stringify(m.error));
    }
    subId = ddp.sub(STREAM, [args.room, { useCollection: false, args: [] }]);
  });
  ddp.on("ready", (m) => {
    if (m.subs.includes(subId)) {
      ready();
    }
  });
  ddp.on("nosub", (m) => fail("subscription refused: " + JSON.stringify(m.error)));
  ddp.on("changed", (m) => {
    if (m.collection === STREAM && m.fields && m.fields.eventName === args.room
        && Array.isArray(m.fields.args)) {
      deliver(m.fields.args[0]);
    }
  });
  ddp.on("disconnected", () => fail("socket closed"));
  return () => ddp.disconnect();
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv);
  } catch (e) {
    fail(e.message);
  }
  let stop = () => {};
  const finish = () => {
    finishing = true;
    stop();
    // Let the last line flush, then leave even if a socket lingers.
    setTimeout(() => process.exit(0), 50).unref();
  };
  const deliver = makeCounter(args, finish);
  const ready = () => process.stdout.write("READY " + args.lib + "\n");
  if (args.lib === "ddp") {
    stop = runDdp(args, deliver, ready);
  } else if (args.lib === "ddp.js") {
    stop = runDdpJs(args, deliver, ready);
  } else {
    fail("--lib must be ddp or ddp.js, got " + args.lib);
  }
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}

main();
