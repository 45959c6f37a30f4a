#!/usr/bin/env python3
"""nmws's full TWAMP (RFC 5357: TWAMP-Control over TCP, open mode) against an independent
implementation: the Rust crate twamp-rs 0.1.0, its example programs `controller` (a
Control-Client and Session-Sender) and `responder` (a Server and Session-Reflector), built by
scripts/peer-twamp-rs.sh. Both run with RUST_LOG=trace, so their logs show every message and
test packet as twamp-rs decoded it; what is checked below is read from there.

1. twamp-rs's controller measures to nmprobe-owampd (TWAMP port, open mode, a test port range):
   Server-Greeting Modes 1 and Count 1024, Server-Start, Accept-Session and Start-Ack Accept Ok;
   the Accept-Session port is the one the daemon logs it accepted the session on, in its range;
   every one of the N test packets reflected once, in order: Sequence Number 0..N-1, Sender
   Sequence Number the sender's, Sender Timestamp the sender's to the bit, Sender TTL the TTL the
   packet arrived with, a nonzero error Multiplier; the daemon's Receive Timestamp and Timestamp
   are NTP time (RFC 4656 4.1.2) a few microseconds after the send and in order; the round trip
   from twamp-rs's send and receive times less the daemon's residence is above 0 and below
   RTT_MAX_S; the daemon's log has the session in open mode and the N reflections.
2. nmws's client (`nmprobe twamp`) measures to twamp-rs's responder: twamp-rs decoded the
   Set-Up-Response (unauthenticated), the Request-TW-Session (IPv4, the client's address and test
   port, Padding 0, Start Time with no packet sent before it and Timeout in the timestamp format),
   Start-Sessions and Stop-Sessions, and every test packet: sequence numbers 0..N-1, each
   Timestamp the send time nmprobe reports, to the nanosecond; nmprobe reports N sent and N
   received, none lost, invalid or duplicated, the reflector's port, each round trip in
   [0, RTT_MAX_S) with the median above 0, and the TTL the reflections arrived with.

twamp-rs's deviations from the RFCs (its own, so nmws is not changed for them; each one's effect
is asserted where it shows, so a change on either side is noticed):
 a. Timestamps: twamp-rs writes and reads the fraction field as nanoseconds (0..999999999), not
    in units of 2^-32 s (RFC 4656 4.1.2, which RFC 5357 4.1.2 refers to). So its controller's
    printed metrics (RTT, one-way delays) mix its nanoseconds with nmws's binary fractions and
    are not checked; here its timestamps are read its way and nmws's the RFC's. nmprobe's
    one-way delays to twamp-rs are that misreading exactly: the forward delay is
    -(1 - 10^9/2^32) times the send time's fraction of a second (checked), and the backward
    delay its mirror; its round trips are sound (the reflector's residence shrinks to 23 %, and
    when the reflector's two stamps straddle a second boundary it turns negative and nmprobe
    counts that round trip as 0: why 0 is allowed below).
 b. Stop-Sessions: twamp-rs sends 20 octets (Command 3, Accept, MBZ, HMAC); RFC 5357 3.8's has
    32 (Number of Sessions and 8 MBZ octets before the HMAC). nmprobe-owampd waits for the rest,
    sees the connection close with 20 octets held, and ends the session with its connection
    (its log says so, with what it reflected). twamp-rs reads nmprobe's 32 octets as 20: its
    "HMAC" starts with nmprobe's Number of Sessions, 1.
 c. Timeout in Request-TW-Session: twamp-rs writes and reads it as a count of seconds, not in
    the 64-bit timestamp format (RFC 4656 3.5). nmprobe's 0.3 s reads as 1288490189 s there, so
    twamp-rs's reflector goes on after Stop-Sessions (harmless: the responder is stopped here).
 d. twamp-rs's reflector writes Sender TTL 255 whatever the test packet's TTL (RFC 5357 4.2.1:
    the received packet's TTL) and an all-zero SID in Accept-Session.

Prints one line per check; exits non-zero on the first wrong answer (a missing twamp-rs is a
failure, not a skip).

usage: twamp_rs.py BINDIR  (twamp-rs's binaries: $NMWS_TWAMP_RS_DIR, else the directory
scripts/peer-twamp-rs.sh builds them in)"""
import datetime
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

NTP_OFFSET = 2208988800
TWAMP_RS = "twamp-rs-0.1.0"
COUNT = 10
INTERVAL_S = 0.002           # nmprobe twamp's gap between test packets (-i 2000 us)
PORTS = (42160, 42169)       # test UDP ports nmprobe-owampd may use (owamp_tshark.py has 42100-42139)
ASKED_PORT = 42163           # the reflector port twamp-rs's controller asks for
# Loopback: the medians are held tight; any one packet may meet a preemption of either side (a
# debug build logging every packet, a neighbour test on the same two cores), so the per-packet
# bounds only catch what no scheduler explains.
RTT_MAX_S = 0.5
RTT_MEDIAN_MAX_S = 0.01
RESIDENCE_MAX_S = 0.5
RESIDENCE_MEDIAN_MAX_S = 0.01


def check(cond, what):
    if not cond:
        print("FAIL " + what, flush=True)
        sys.exit(1)
    print("ok   " + what, flush=True)


def rs_dir():
    d = os.environ.get("NMWS_TWAMP_RS_DIR")
    if d:
        return d
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "nmws", TWAMP_RS, "bin")


def default_ttl():
    with open("/proc/sys/net/ipv4/ip_default_ttl") as f:
        return int(f.read())


ANSI = re.compile(r"\x1b\[[0-9;]*m")
TS = r"TimeStamp \{ integer_part_of_seconds: (\d+), fractional_part_of_seconds: (\d+) \}"
EE = r"ErrorEstimate \{ s: (\d+), mbz: (\d+), scale: (\d+), multiplier: (\d+) \}"
SENT = re.compile(r"Twamp-Test: TwampTestPacketUnauth \{ sequence_number: (\d+), timestamp: " + TS +
                  r", error_estimate: " + EE)
REFLECTED = re.compile(r"^(\S+) .*Received reflected pkt: TwampTestPacketUnauthReflected \{ sequence_number: (\d+), "
                       r"timestamp: " + TS + r", error_estimate: " + EE + r", mbz_first: 0, receive_timestamp: " +
                       TS + r", sender_sequence_number: (\d+), sender_timestamp: " + TS +
                       r", error_estimate_sender: " + EE + r", mbz_second: 0, sender_ttl: (\d+)")


def lines(path):
    with open(path) as f:
        return [ANSI.sub("", line.rstrip("\n")) for line in f]


def grep(path, pattern):
    rx = re.compile(pattern)
    return [m for m in (rx.search(line) for line in lines(path)) if m]


def ntp(sec, frac):
    """RFC 4656 4.1.2 / RFC 1305: the fraction in units of 2^-32 s."""
    return int(sec) - NTP_OFFSET + int(frac) / 2 ** 32


def ntp_ns(sec, frac):
    """The same in integer nanoseconds since the Unix epoch (rounded), exact where a float is not."""
    return (int(sec) - NTP_OFFSET) * 10 ** 9 + (int(frac) * 10 ** 9 + 2 ** 31) // 2 ** 32


def rs_time(sec, frac):
    """twamp-rs's reading of the same fields (deviation a): the fraction in nanoseconds."""
    return int(sec) - NTP_OFFSET + int(frac) / 1e9


def log_time(stamp):
    """tracing's RFC 3339 UTC stamp of a log line (microseconds), as Unix seconds."""
    t = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def wait_log(path, pattern, proc, what, seconds=15):
    deadline = time.time() + seconds
    while time.time() < deadline:
        m = grep(path, pattern)
        if m:
            return m[0]
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    print("".join(line + "\n" for line in lines(path)[-30:]), end="")
    check(False, what)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rs_env():
    env = dict(os.environ, RUST_LOG="trace", NO_COLOR="1")
    env.pop("RUST_LOG_STYLE", None)
    return env


def controller_to_owampd(bindir, rsbin, tmp):
    dlog = os.path.join(tmp, "owampd.log")
    d = subprocess.Popen([os.path.join(bindir, "nmprobe-owampd"), "-b", "127.0.0.1", "--owamp-port", "-1",
                          "--twamp-port", "0", "--modes", "open", "--test-ports", "%d-%d" % PORTS, "-v", "-v"],
                         stderr=open(dlog, "w"))
    try:
        port = int(wait_log(dlog, r"twamp listening on 127\.0\.0\.1 port (\d+) \(modes: open\)", d,
                            "nmprobe-owampd listens for TWAMP in open mode").group(1))
        clog = os.path.join(tmp, "controller.log")
        with open(clog, "w") as out:
            p = subprocess.run([os.path.join(rsbin, "controller"), "--responder-addr", "127.0.0.1", "--responder-port",
                                str(port), "--controller-addr", "127.0.0.1", "--responder-reflect-port", str(ASKED_PORT),
                                "--number-of-test-packets", str(COUNT), "--timeout", "1", "--stop-session-sleep", "3"],
                               stdout=out, stderr=subprocess.STDOUT, env=rs_env(), timeout=60)
        # the daemon logs the end of the connection once it has seen it close
        wait_log(dlog, r"TWAMP control connection closed", d, "nmprobe-owampd saw the control connection close")
    finally:
        stop(d)
    log = lines(clog)
    if p.returncode != 0 or not any("Got back all test packets" in line for line in log):
        print("".join(line[:300] + "\n" for line in log[-40:]), end="")
    check(p.returncode == 0, "1. twamp-rs controller -> nmprobe-owampd: the controller ran (exit 0)")
    check(d.returncode == 0, "1. nmprobe-owampd exits cleanly on SIGTERM")
    g = grep(clog, r"Server greeting: ServerGreeting \{ unused: \[[0, ]*\], mode: (\d+), .*count: (\d+), mbz: \[[0, ]*\]")
    check(len(g) == 1 and int(g[0].group(1)) == 1 and int(g[0].group(2)) == 1024,
          "1. Server-Greeting decodes: Modes 1 (open), Count 1024, unused and MBZ octets zero")
    check(len(grep(clog, r"Server-Start: ServerStart \{ mbz_start: \[[0, ]*\], accept: Ok,")) == 1,
          "1. Server-Start: Accept Ok")
    acc = grep(clog, r"Accept-Session: AcceptSession \{ accept: Ok, mbz_first: 0, port: (\d+),")
    check(len(acc) == 1, "1. Accept-Session: Accept Ok")
    rport = int(acc[0].group(1))
    check(len(grep(clog, r"Start-Ack: StartAck \{ accept: Ok,")) == 1, "1. Start-Ack: Accept Ok")
    check(len(grep(clog, r"Packet loss: 0%")) == 1 and len(grep(clog, "Got back all test packets")) == 1,
          "1. the controller got all %d test packets back (Packet loss: 0%%)" % COUNT)

    sent, sent_ee = {}, {}
    for m in grep(clog, SENT.pattern):
        sent[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        sent_ee[int(m.group(1))] = m.group(4, 5, 6, 7)
    check(sorted(sent) == list(range(COUNT)), "1. twamp-rs sent sequence numbers 0..%d" % (COUNT - 1))
    refl = [REFLECTED.match(line) for line in log]
    refl = [m for m in refl if m]
    check(len(refl) == COUNT, "1. %d reflections decoded by twamp-rs (got %d)" % (COUNT, len(refl)))
    seqs = [int(m.group(2)) for m in refl]
    sseqs = [int(m.group(11)) for m in refl]
    check(seqs == list(range(COUNT)) and sseqs == list(range(COUNT)),
          "1. reflections in order: Sequence Number 0..%d, Sender Sequence Number the same (got %s / %s)"
          % (COUNT - 1, seqs, sseqs))
    check(all((int(m.group(12)), int(m.group(13))) == sent[int(m.group(11))] for m in refl),
          "1. every Sender Timestamp is the sender's own, to the bit")
    ttl = default_ttl()
    check(all(int(m.group(18)) == ttl for m in refl),
          "1. Sender TTL %d: the TTL twamp-rs's packets arrived with (its sockets' default)" % ttl)
    check(all(int(m.group(6)) == 0 and int(m.group(8)) > 0 for m in refl) and
          all(m.group(14, 15, 16, 17) == sent_ee[int(m.group(11))] for m in refl),
          "1. the reflector's error estimate has MBZ 0 and a nonzero Multiplier; the sender's is copied")
    fwd, res, rtt = [], [], []
    for m in refl:
        t1 = rs_time(*sent[int(m.group(11))])
        t3 = ntp(m.group(3), m.group(4))
        t2 = ntp(m.group(9), m.group(10))
        t4 = log_time(m.group(1))  # the controller's log line for the reflection: after its arrival
        fwd.append(t2 - t1), res.append(t3 - t2), rtt.append((t4 - t1) - (t3 - t2))
    check(all(-1e-6 <= f < RTT_MAX_S for f in fwd),
          "1. the daemon's Receive Timestamps are NTP time just after twamp-rs's sends: %.1f..%.1f us"
          % (min(fwd) * 1e6, max(fwd) * 1e6))
    check(all(0 <= r < RESIDENCE_MAX_S for r in res) and statistics.median(res) < RESIDENCE_MEDIAN_MAX_S,
          "1. its Timestamp follows its Receive Timestamp: residence %.1f..%.1f us" % (min(res) * 1e6, max(res) * 1e6))
    check(all(0 < r < RTT_MAX_S for r in rtt) and statistics.median(rtt) < RTT_MEDIAN_MAX_S,
          "1. round trips (twamp-rs's send time to its log line of the reflection, less the daemon's residence; "
          "an upper bound): min %.3f median "
          "%.3f max %.3f ms" % (min(rtt) * 1e3, statistics.median(rtt) * 1e3, max(rtt) * 1e3))
    rs_rtt = grep(clog, r"RTT \(AVG\): (\S+)ms")
    print("info twamp-rs's own RTT (AVG) %s ms is not checked: it mixes its nanosecond fractions with the "
          "daemon's binary ones (deviation a)" % (rs_rtt[0].group(1) if rs_rtt else "?"), flush=True)

    check(len(grep(dlog, r"127\.0\.0\.1: TWAMP control connection in open mode$")) == 1,
          "1. nmprobe-owampd: the control connection in open mode")
    check(len(grep(dlog, r"127\.0\.0\.1: command 5, 112 octets$")) == 1 and
          len(grep(dlog, r"127\.0\.0\.1: command 2, 32 octets$")) == 1,
          "1. nmprobe-owampd: Request-TW-Session (112 octets) and Start-Sessions (32 octets) read")
    a = grep(dlog, r"TWAMP session accepted on port (\d+) \(open mode, 0 packets, padding 0\)")
    check(len(a) == 1 and int(a[0].group(1)) == rport and PORTS[0] <= rport <= PORTS[1],
          "1. nmprobe-owampd accepted the session on port %d, the Accept-Session's, in %d-%d (asked %d)"
          % (rport, PORTS[0], PORTS[1], ASKED_PORT))
    check(len(grep(dlog, r"Start-Sessions: 1 session$")) == 1, "1. nmprobe-owampd: Start-Sessions for 1 session")
    # deviation b: a 20-octet Stop-Sessions, then the connection closes
    check(len(grep(dlog, r"connection ended inside a message \(20 octets held\)")) == 1,
          "1. nmprobe-owampd: twamp-rs's Stop-Sessions is 20 octets, not RFC 5357 3.8's 32 (deviation b)")
    e = grep(dlog, r"TWAMP session on port (\d+) ended with its connection: reflected (\d+), invalid (\d+), "
                   r"over rate (\d+)")
    check(len(e) == 1 and [int(x) for x in e[0].groups()] == [rport, COUNT, 0, 0],
          "1. nmprobe-owampd: the session ended with its connection, %d reflected, none invalid or over rate" % COUNT)


def client_to_responder(bindir, rsbin, tmp):
    rlog = os.path.join(tmp, "responder.log")
    r = subprocess.Popen([os.path.join(rsbin, "responder"), "--addr", "127.0.0.1", "--port", "0"],
                         stdout=open(rlog, "w"), stderr=subprocess.STDOUT, env=rs_env())
    try:
        port = int(wait_log(rlog, r"Listening TWAMP-Control on: 127\.0\.0\.1:(\d+)/tcp", r,
                            "twamp-rs responder listens").group(1))
        timeout_ms = 300
        p = subprocess.run([os.path.join(bindir, "nmprobe"), "twamp", "--json", "-H", "127.0.0.1", "-p", str(port),
                            "-c", str(COUNT), "-i", str(round(INTERVAL_S * 1e6)), "-t", str(timeout_ms), "--frames"],
                           capture_output=True, text=True, timeout=60)
        # twamp-rs logs the Stop-Sessions it read before its reflector's (endless, deviation c) wait
        wait_log(rlog, r"Stop-Sessions received", r, "twamp-rs responder read Stop-Sessions")
    finally:
        stop(r)
    check(p.returncode == 0, "2. nmprobe twamp -> twamp-rs responder: nmprobe ran (exit %d%s)"
          % (p.returncode, ": " + p.stderr.strip() if p.returncode else ""))
    res = json.loads(p.stdout)
    frames = {k: [f[k] for f in res["frames"]] for k in res["frames"][0]} if res.get("frames") else {}
    check(res["mode"] == "open" and res["sent"] == COUNT and res["received"] == COUNT and res["lost"] == 0 and
          res["invalid"] == 0 and res["duplicates"] == 0 and res["skipped"] == 0,
          "2. nmprobe sent %d and got %d reflections back, none lost, invalid, duplicated or skipped"
          % (res["sent"], res["received"]))
    check(len(frames.get("rttNanos", [])) == COUNT, "2. nmprobe's per-packet records (--frames): %d" % COUNT)

    setup = grep(rlog, r"Set-Up-Response: SetUpResponse \{ mode: (\w+),")
    check(len(setup) == 1 and setup[0].group(1) == "Unauthenticated",
          "2. twamp-rs decoded the Set-Up-Response: mode Unauthenticated")
    req = grep(rlog, r"Request-TW-Session: RequestTwSession \{ command_number: RequestTwSession, mbz_first: 0, "
                     r"ipvn: 4, conf_sender: 0, conf_receiver: 0, number_of_schedule_slots: 0, number_of_packets: 0, "
                     r"sender_port: (\d+), receiver_port: (\d+), sender_address: 127\.0\.0\.1, .*receiver_address: "
                     r"127\.0\.0\.1, .*padding_length: 0, start_time: " + TS + r", timeout: (\d+),")
    check(len(req) == 1, "2. twamp-rs decoded the Request-TW-Session: IPv4, 127.0.0.1 both ends, Padding 0")
    sport = int(req[0].group(1))
    start = ntp(req[0].group(3), req[0].group(4))
    # nmprobe announces a Start Time a little after its request and sends nothing before it (RFC 4656
    # 3.4, RFC 5357 3.5); on loopback the control exchange ends well before it, and the first
    # packet leaves within its first gap of it
    first = res["frames"][0]["sendEpochNanos"] / 1e9
    check(INTERVAL_S - 1e-6 <= first - start < 0.5,
          "2. its Start Time is NTP time, and nmprobe's first packet leaves one gap after it, not before (%+.6f s after)"
          % (first - start))
    check(int(req[0].group(5)) == round(timeout_ms / 1e3 * 2 ** 32),
          "2. its Timeout is %d ms in the timestamp format (%s; twamp-rs takes it as seconds, deviation c)"
          % (timeout_ms, req[0].group(5)))
    lst = grep(rlog, r"Listening for pkts from 127\.0\.0\.1:(\d+) on 127\.0\.0\.1:(\d+)")
    check(len(lst) == 1 and int(lst[0].group(1)) == sport and int(lst[0].group(2)) == res["remotePort"],
          "2. the reflector listens on the port nmprobe reports (%d) for nmprobe's test port (%d)"
          % (res["remotePort"], sport))
    check(len(grep(rlog, r"Read Start-Sessions")) == 1, "2. twamp-rs decoded Start-Sessions")
    got = grep(rlog, SENT.pattern)
    check([int(m.group(1)) for m in got] == list(range(COUNT)),
          "2. twamp-rs decoded %d test packets, sequence numbers 0..%d in order" % (len(got), COUNT - 1))
    sends = frames["sendEpochNanos"]
    err = max(abs(ntp_ns(m.group(2), m.group(3)) - sends[int(m.group(1))]) for m in got)
    check(err <= 1, "2. each test packet's Timestamp is NTP time, the send time nmprobe reports (within %d ns)" % err)
    check(all(int(m.group(5)) == 0 and int(m.group(7)) > 0 for m in got),
          "2. nmprobe's error estimate: MBZ 0, a nonzero Multiplier")
    stopm = grep(rlog, r"Stop-Sessions: StopSessions \{ command_number: StopSessions, accept: Ok, mbz: 0, "
                       r"hmac: \[0, 0, 0, 1, 0,")
    check(len(stopm) == 1, "2. twamp-rs decoded Stop-Sessions, Accept Ok; its 'HMAC' begins with nmprobe's "
                           "Number of Sessions 1 (its 20-octet layout, deviation b)")

    rtt = [x / 1e9 for x in frames["rttNanos"]]
    med = statistics.median(rtt)
    check(all(0 <= x < RTT_MAX_S for x in rtt) and 0 < med < RTT_MEDIAN_MAX_S,
          "2. nmprobe's round trips: min %.3f median %.3f max %.3f ms" % (min(rtt) * 1e3, med * 1e3, max(rtt) * 1e3))
    check(frames["senderTtl"] == [255] * COUNT,
          "2. Sender TTL 255 in every reflection (nmprobe sends with 255; twamp-rs writes 255 always, deviation d)")
    ttl = default_ttl()
    check(frames["replyTtl"] == [ttl] * COUNT,
          "2. nmprobe reads the TTL the reflections arrived with: %d, twamp-rs's default" % ttl)
    fwd, bwd = frames["forwardNanos"], frames["backwardNanos"]
    ok = True
    for i in range(COUNT):
        frac = (sends[i] % 10 ** 9) / 1e9
        if frac > 0.99 or frames["rttNanos"][i] == 0:
            continue  # the reflector's stamps may be in the next second: nothing to predict
        predicted = -(1 - 1e9 / 2 ** 32) * frac
        ok = ok and abs(fwd[i] / 1e9 - predicted) < 0.005 and abs(fwd[i] + bwd[i] - frames["rttNanos"][i]) <= 1
    check(ok, "2. nmprobe's one-way delays are twamp-rs's nanosecond fractions read as 2^-32 s (deviation a): "
              "forward = -(1 - 10^9/2^32) x the send's fraction of a second (median %.1f ms), forward + backward = "
              "the round trip" % (statistics.median(fwd) / 1e6))


def main():
    bindir = sys.argv[1]
    rsbin = rs_dir()
    check(all(os.access(os.path.join(rsbin, b), os.X_OK) for b in ("controller", "responder")),
          "twamp-rs's controller and responder are built in %s (scripts/peer-twamp-rs.sh)" % rsbin)
    tmp = tempfile.mkdtemp(prefix="nmp-twamp-rs-")
    controller_to_owampd(bindir, rsbin, tmp)
    client_to_responder(bindir, rsbin, tmp)
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    print("twamp-rs interop passed both ways")


if __name__ == "__main__":
    main()
