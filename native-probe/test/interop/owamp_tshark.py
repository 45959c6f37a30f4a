#!/usr/bin/env python3
"""nmws's OWAMP and TWAMP read by an independent parser: Wireshark's TWAMP-Control,
TWAMP-Test and OWAMP-Test dissectors (tshark; OWAMP-Control shares TWAMP-Control's
greeting, set-up and session formats, so the TWAMP-Control dissector reads both).

For each protocol and mode (OWAMP open, authenticated, encrypted, each both ways: nmprobe
sending, nmprobe-owampd sending with `--direction from` as owping -f asks, and the two
sessions at once on one control connection with `--direction both` as owping runs by
default; TWAMP open,
authenticated, encrypted, mixed) `nmprobe owamp|twamp` runs against nmprobe-owampd over
loopback while tshark captures, and the capture is decoded with Wireshark's dissectors:
- no frame is malformed and no expert info of warning or error level is raised on them;
- Server-Greeting: the modes the daemon offers, Count 1024; Set-Up-Response: the mode asked;
  Server-Start, Accept-Session, Start-Ack: Accept 0;
- test packets in the clear (open, and TWAMP mixed): sequence numbers 0..N-1 in order, NTP
  timestamps inside the run, the error estimate nmprobe reports (in "from" the daemon's, sent
  from the test port its Accept-Session named; in "both" each session's packets apart, by
  their ports); reflections carry the
  sender's sequence number and timestamp, a receive time not before the send, TTL 255;
- test packets in the authenticated and encrypted modes: the RFCs' lengths (48 and 112
  octets before padding) and no sequence number in the clear;
- refusals: a Set-Up-Response with an unknown mode gets Server-Start Accept 3, a session
  beyond the daemon's packet limit gets Accept-Session Accept 4.

Prints one line per check; exits non-zero on the first wrong answer (a missing tshark is a
failure, not a skip).

usage: owamp_tshark.py BINDIR"""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

NTP_OFFSET = 2208988800
COUNT = 10
PORTS = (42100, 42139)  # test UDP ports the daemon may use


def check(cond, what):
    if not cond:
        print("FAIL " + what, flush=True)
        sys.exit(1)
    print("ok   " + what, flush=True)


def start_daemon(bindir, keyfile, log):
    d = subprocess.Popen([os.path.join(bindir, "nmprobe-owampd"), "-b", "127.0.0.1", "--owamp-port", "0",
                          "--twamp-port", "0", "--modes", "open,authenticated,encrypted,mixed", "--key-file", keyfile,
                          "--test-ports", "%d-%d" % PORTS, "--max-packets", "1000", "-v"],
                         stderr=open(log, "w"))
    ports = {}
    for _ in range(50):
        time.sleep(0.1)
        for line in open(log):
            if " listening on " in line:
                ports[line.split()[1]] = int(line.split(" port ")[1].split()[0])
        if len(ports) == 2:
            return d, ports["owamp"], ports["twamp"]
    d.kill()
    print(open(log).read())
    check(False, "nmprobe-owampd started")


def capture(pcap, ctl_port):
    t = subprocess.Popen(["tshark", "-q", "-i", "lo", "-w", pcap, "-f",
                          "tcp port %d or udp portrange %d-%d" % (ctl_port, PORTS[0], PORTS[1])],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # tshark says "Capturing on" once the capture runs
    deadline = time.time() + 15
    line = ""
    while time.time() < deadline and "Capturing on" not in line:
        line = t.stderr.readline()
        if line == "" and t.poll() is not None:
            break
    check("Capturing on" in line, "tshark captures on loopback")
    time.sleep(0.3)
    return t


def stop_capture(t):
    time.sleep(0.3)
    t.send_signal(signal.SIGINT)
    t.wait(timeout=15)


def decode_args(proto, ctl_port):
    return ["-d", "tcp.port==%d,twamp.control" % ctl_port,
            "-d", "udp.port==%d-%d,%s" % (PORTS[0], PORTS[1], "owamp.test" if proto == "owamp" else "twamp.test")]


def frames(pcap, proto, ctl_port):
    """Decoded frames. ctl_port None: test packets only, so Wireshark's TWAMP-Control
    dissector does not claim an OWAMP session's UDP conversation for TWAMP-Test."""
    args = decode_args(proto, ctl_port) if ctl_port else decode_args(proto, 0)[2:]
    out = subprocess.run(["tshark", "-r", pcap, "-T", "json", "-x"] + args +
                         ["-Y", "twamp.control or twamp.test or owamp.test"],
                         capture_output=True, text=True, check=True).stdout
    return [p["_source"]["layers"] for p in json.loads(out)]


def bad_frames(pcap, proto, ctl_port, clear_until):
    """Frames Wireshark marks malformed or with warning / error expert info. In the
    authenticated, encrypted and mixed modes every control message after Server-Start is
    AES-CBC ciphertext, which Wireshark's TWAMP-Control dissector (it has no keys) reads as
    if clear: those frames (control frames numbered above clear_until) are not judged."""
    out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "frame.number", "-e", "twamp.control",
                          "-e", "_ws.col.Info"] + decode_args(proto, ctl_port) +
                         ["-Y", "_ws.malformed or (_ws.expert.severity >= 0x00600000 and "
                                "(twamp.control or twamp.test or owamp.test))"],
                         capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        cols = line.split("\t")
        if not line.strip():
            continue
        if clear_until is not None and cols[1] and int(cols[0]) > clear_until:
            continue
        bad.append(line)
    return bad


def field(layer, name):
    v = layer.get(name)
    if isinstance(v, list):
        v = v[0]
    return v


def num(v):
    return int(v, 0) if isinstance(v, str) else v


def raw_ntp(layer, name):
    raw = layer.get(name + "_raw")
    if raw is None:
        return None
    if isinstance(raw[0], list):
        raw = raw[0]
    sec, frac = struct.unpack("!II", bytes.fromhex(raw[0]))
    return sec - NTP_OFFSET + frac / 2 ** 32


def error_seconds(layer, prefix):
    tree = layer.get(prefix + "_tree", {})
    mult = num(tree.get(prefix + ".multiplier", "0"))
    scale = num(tree.get(prefix + ".scale", "0"))
    return mult * 2.0 ** (scale - 32)


def run_client(bindir, proto, ctl_port, mode, keyfile, extra=()):
    cmd = [os.path.join(bindir, "nmprobe"), proto, "--json", "-H", "127.0.0.1", "-p", str(ctl_port), "-c", str(COUNT),
           "-i", "2000", "-t", "300", "-m", mode, "--key-id", "alice", "--key-file", keyfile] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return p


def unknown_mode(ctl_port):
    """Set-Up-Response with Mode 16: the server answers Server-Start Accept 3 and closes."""
    s = socket.create_connection(("127.0.0.1", ctl_port), timeout=5)
    g = b""
    while len(g) < 64:
        g += s.recv(64 - len(g))
    s.sendall(struct.pack("!I", 16) + bytes(160))
    r = b""
    while len(r) < 48:
        c = s.recv(48 - len(r))
        if not c:
            break
        r += c
    s.close()
    return r


def check_session(bindir, proto, mode, ctl_port, keyfile, tmp, modes_offered, direction="to"):
    pcap = os.path.join(tmp, "%s-%s-%s.pcap" % (proto, mode, direction))
    cap = capture(pcap, ctl_port)
    t0 = time.time()
    p = run_client(bindir, proto, ctl_port, mode, keyfile, ["--direction", direction] if direction != "to" else [])
    t1 = time.time()
    refused = None
    if proto == "owamp" and mode == "open" and direction == "to":
        refused = run_client(bindir, proto, ctl_port, mode, keyfile, ["-c", "5000"])
    if proto == "twamp" and mode == "open":
        start3 = unknown_mode(ctl_port)
    stop_capture(cap)
    name = "%s %s" % (proto, mode) + {"from": " from the daemon", "both": " both ways"}.get(direction, "")
    check(p.returncode == 0, "%s: nmprobe ran (%s)" % (name, p.stderr.strip()))
    res = json.loads(p.stdout)
    check(res["sent"] == COUNT and res["received"] == COUNT, "%s: nmprobe sent and received %d" % (name, COUNT))
    if direction == "both":
        check(res["direction"] == "both" and res["reverse.sent"] == COUNT and res["reverse.received"] == COUNT,
              "%s: the daemon sent %d, nmprobe received them (reverse.sent, reverse.received)" % (name, COUNT))
    fr = frames(pcap, proto, ctl_port)
    starts = [num(field(f["frame"], "frame.number")) for f in fr
              if "twamp.control" in f and "twamp.control.iv" in f["twamp.control"]]
    check(len(starts) >= 1, "%s: Server-Start decoded" % name)
    bad = bad_frames(pcap, proto, ctl_port, None if mode == "open" else starts[0])
    check(not bad, "%s: no malformed frame, no warning or error expert info%s (%s)" %
          (name, "" if mode == "open" else " up to Server-Start and on test packets", "; ".join(bad[:3])))
    ctl = [f["twamp.control"] for f in fr if "twamp.control" in f]
    greeting = [c for c in ctl if "twamp.control.modes" in c]
    check(len(greeting) >= 1 and num(field(greeting[0], "twamp.control.modes")) == modes_offered and
          num(field(greeting[0], "twamp.control.count")) == 1024,
          "%s: Server-Greeting offers modes %d with Count 1024" % (name, modes_offered))
    want_mode = {"open": 1, "authenticated": 2, "encrypted": 4, "mixed": 8}[mode]
    setup = [c for c in ctl if "twamp.control.mode" in c]
    check(len(setup) >= 1 and num(field(setup[0], "twamp.control.mode")) == want_mode,
          "%s: Set-Up-Response asks mode %d" % (name, want_mode))
    accepts = [num(field(c, "twamp.control.accept")) for c in ctl if "twamp.control.accept" in c]
    check(len(accepts) >= 1 and accepts[0] == 0, "%s: Server-Start Accept 0" % name)
    test_layer = "owamp.test" if proto == "owamp" else "twamp.test"
    pkts = [(f["frame"], f[test_layer]) for f in frames(pcap, proto, None) if test_layer in f]
    clear = mode in ("open", "mixed")
    # UDP payload = frame - 14 (loopback's Ethernet header) - 20 (IPv4) - 8 (UDP)
    plen = lambda fm: num(field(fm, "frame.len")) - 42
    senders = [(fm, l) for fm, l in pkts if plen(fm) == (14 if clear else 48)]
    if mode == "open" and direction != "both":
        check(accepts[:3] == [0, 0, 0], "%s: Server-Start, Accept-Session and Start-Ack Accept 0" % name)
    if direction == "both":
        check(len(greeting) == 1, "%s: one control connection (one Server-Greeting)" % name)
        if mode == "open":
            # the daemon's messages only: Wireshark's TWAMP-Control dissector expects one Request-Session
            # per Start-Sessions and reads nmprobe's second one as an Accept-Session (its Command 1 as Accept)
            srv = [num(field(f["twamp.control"], "twamp.control.accept")) for f in fr
                   if "twamp.control" in f and "twamp.control.accept" in f["twamp.control"] and "tcp" in f and
                   num(field(f["tcp"], "tcp.srcport")) == ctl_port]
            check(srv[:4] == [0, 0, 0, 0],
                  "%s: the daemon's Server-Start, two Accept-Sessions and Start-Ack say Accept 0 (%s)" % (name, srv))
        # nmprobe's session goes to the port the first Accept-Session named, the daemon's leaves the second's
        udp = [(f["udp"], f[test_layer]) for f in frames(pcap, proto, None) if test_layer in f and "udp" in f]
        ways = [("nmprobe's", [l for u, l in udp if num(field(u, "udp.dstport")) == res["remotePort"]],
                 res["senderErrorMs"]),
                ("the daemon's", [l for u, l in udp if num(field(u, "udp.srcport")) == res["reverse.remotePort"]],
                 res["reverse.senderErrorMs"])]
        check(len(udp) == 2 * COUNT and all(len(w[1]) == COUNT for w in ways),
              "%s: %d test packets each way, %d in all (got %s)" % (name, COUNT, 2 * COUNT,
                                                                 [len(w[1]) for w in ways]))
        for who, ls, err_ms in ways if clear else []:
            seqs = [num(field(l, "twamp.test.seq_number")) for l in ls]
            check(seqs == list(range(COUNT)), "%s: %s sequence numbers 0..%d in order" % (name, who, COUNT - 1))
            ts = [raw_ntp(l, "twamp.test.timestamp") for l in ls]
            check(all(t0 - 1 <= t <= t1 + 1 for t in ts), "%s: %s NTP timestamps inside the run" % (name, who))
            errs = [error_seconds(l, "twamp.test.error_estimate") for l in ls]
            check(all(abs(e * 1e3 - err_ms) <= 1e-9 * max(1, err_ms) for e in errs),
                  "%s: %s error estimate %.6g ms decodes as nmprobe states it" % (name, who, err_ms))
    if direction == "from":
        # the daemon sends: every test packet leaves its test port (the Accept-Session Port) for nmprobe's
        srcs = set(num(field(f["udp"], "udp.srcport")) for f in frames(pcap, proto, None) if "udp" in f)
        check(len(srcs) == 1 and PORTS[0] <= list(srcs)[0] <= PORTS[1] and res["remotePort"] in srcs,
              "%s: all %d test packets sent from the daemon's test port %s" % (name, len(pkts), sorted(srcs)))
        check(len(pkts) == COUNT, "%s: %d test packets, none back" % (name, COUNT))
    if clear and direction != "both":
        seqs = [num(field(l, "twamp.test.seq_number")) for fm, l in senders]
        check(seqs[:COUNT] == list(range(COUNT)), "%s: sender sequence numbers 0..%d in order" % (name, COUNT - 1))
        ts = [raw_ntp(l, "twamp.test.timestamp") for fm, l in senders[:COUNT]]
        check(all(t0 - 1 <= t <= t1 + 1 for t in ts), "%s: sender NTP timestamps inside the run" % name)
        errs = [error_seconds(l, "twamp.test.error_estimate") for fm, l in senders[:COUNT]]
        check(all(abs(e * 1e3 - res["senderErrorMs"]) <= 1e-9 * max(1, res["senderErrorMs"]) for e in errs),
              "%s: error estimate %.6g ms decodes as nmprobe states it" % (name, res["senderErrorMs"]))
        if proto == "twamp":
            refl = [l for fm, l in pkts if "twamp.test.sender_seq_number" in l]
            check(len(refl) == COUNT, "%s: %d reflections decoded" % (name, COUNT))
            ok = all(num(field(l, "twamp.test.sender_seq_number")) == i and
                     raw_ntp(l, "twamp.test.receive_timestamp") >= raw_ntp(l, "twamp.test.sender_timestamp") - 1e-3 and
                     num(field(l, "twamp.test.sender_ttl")) == 255 for i, l in enumerate(refl))
            check(ok, "%s: reflections carry the sender's sequence number, a receive time after the send, TTL 255"
                  % name)
    elif not clear:
        lens = sorted(set(plen(fm) for fm, l in pkts))
        want = [48] if proto == "owamp" else [48, 112]
        check(lens == want, "%s: test packets of %s octets (got %s)" % (name, want, lens))
        seqs = [num(field(l, "twamp.test.seq_number")) for fm, l in senders]
        check(seqs[:COUNT] != list(range(COUNT)), "%s: no sequence number in the clear" % name)
    if refused is not None:
        check(refused.returncode != 0 and "Accept 4" in refused.stderr,
              "owamp: a session of 5000 packets over the limit of 1000 is refused with Accept 4 (%s)"
              % refused.stderr.strip())
        check(4 in accepts, "owamp: the capture shows Accept-Session Accept 4")
    if proto == "twamp" and mode == "open":
        check(len(start3) == 48 and start3[15] == 3, "twamp: Set-Up-Response with Mode 16 gets Server-Start Accept 3")
        check(3 in accepts, "twamp: the capture shows Server-Start Accept 3")


def main():
    bindir = sys.argv[1]
    check(shutil.which("tshark") is not None, "tshark is installed (Debian package tshark)")
    tmp = tempfile.mkdtemp(prefix="nmp-owamp-tshark-")
    keyfile = os.path.join(tmp, "owampd.pfs")
    with open(keyfile, "w") as f:
        f.write("# key id and hex key, as owampd keeps them\nalice 0123456789abcdef0123456789abcdef\n")
    os.chmod(keyfile, 0o600)
    log = os.path.join(tmp, "owampd.log")
    d, op, tp = start_daemon(bindir, keyfile, log)
    try:
        for mode in ("open", "authenticated", "encrypted"):
            check_session(bindir, "owamp", mode, op, keyfile, tmp, 7)
            check_session(bindir, "owamp", mode, op, keyfile, tmp, 7, "from")
            check_session(bindir, "owamp", mode, op, keyfile, tmp, 7, "both")
        for mode in ("open", "authenticated", "encrypted", "mixed"):
            check_session(bindir, "twamp", mode, tp, keyfile, tmp, 15)
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=10)
    check(d.returncode == 0, "nmprobe-owampd exits cleanly on SIGTERM")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
