#!/usr/bin/env python3
"""nmws's STAMP against an independent implementation: scapy's STAMP layer (RFC 8762 / 8972).

1. scapy as session-sender, nmprobe-responder's reflector as session-reflector: every
   reflection decodes with scapy's reflector layer and carries the sender's sequence
   number, timestamp, error estimate and SSID, a receive time not after its transmit time,
   and the TTL the test packet arrived with.
2. nmprobe's session-sender (`nmprobe stamp`) against a reflector built from scapy's layers:
   every test packet decodes with scapy's sender layer (sequence numbers 0.., the SSID asked
   for, MBZ zero, NTP format), and nmprobe reports every reflection received with round trip
   = forward + backward.
3. and 4. The same both ways in authenticated mode (RFC 8762 4.2.2 and 4.3.2). scapy has no
   authenticated layers, so they are declared here from scapy's own field types after the
   RFC's figures, and the HMAC (HMAC-SHA-256 truncated to 16 octets over the first 96) is
   recomputed with Python's hmac and hashlib: every reflection nmprobe-responder signs and
   every test packet nmprobe signs verifies, a packet with a wrong HMAC and an
   unauthenticated one are not answered, and a reflection signed wrongly is not counted.

Prints one line per check; exits non-zero on the first wrong answer.

usage: stamp_scapy.py BINDIR"""
import hashlib
import hmac
import json
import os
import socket
import subprocess
import sys
import threading
import time

from scapy.contrib.stamp import (STAMPSessionReflectorTestUnauthenticated as Reflector,
                                 STAMPSessionSenderTestUnauthenticated as Sender, ErrorEstimate)
from scapy.fields import ByteField, IntField, PacketField, ShortField, StrFixedLenField
from scapy.layers.ntp import TimeStampField
from scapy.packet import Packet

KEY_ID = "lab"
KEY = bytes.fromhex("8f3a1c9e5b7d2f4061a8c3e5f7092b4d6e8f0a1c3e5b7d9f2a4c6e8b0d2f4a61")


def mbz(name, n):
    return StrFixedLenField(name, b"\0" * n, n)


class AuthSender(Packet):
    """Session-Sender test packet, authenticated mode: RFC 8762 Figure 4 with RFC 8972's SSID."""
    name = "STAMP Session-Sender Test (authenticated)"
    fields_desc = [IntField("seq", 0), mbz("mbz0", 12), TimeStampField("ts", 0),
                   PacketField("err_estimate", ErrorEstimate(), ErrorEstimate), ShortField("ssid", 1),
                   mbz("mbz1", 68), mbz("hmac", 16)]


class AuthReflector(Packet):
    """Session-Reflector test packet, authenticated mode: RFC 8762 Figure 6 with RFC 8972's SSID."""
    name = "STAMP Session-Reflector Test (authenticated)"
    fields_desc = [IntField("seq", 0), mbz("mbz0", 12), TimeStampField("ts", 0),
                   PacketField("err_estimate", ErrorEstimate(), ErrorEstimate), ShortField("ssid", 1),
                   mbz("mbz1", 4), TimeStampField("ts_rx", 0), mbz("mbz2", 8), IntField("seq_sender", 0),
                   mbz("mbz3", 12), TimeStampField("ts_sender", 0),
                   PacketField("err_estimate_sender", ErrorEstimate(), ErrorEstimate), mbz("mbz4", 6),
                   ByteField("ttl_sender", 255), mbz("mbz5", 15), mbz("hmac", 16)]


def stamp_hmac(data):
    """RFC 8762 4.4: HMAC-SHA-256 truncated to 128 bits, covering the first six 16-octet blocks."""
    return hmac.new(KEY, data[:96], hashlib.sha256).digest()[:16]


def signed(pkt, pad=0):
    raw = bytes(pkt) + b"\0" * pad
    return raw[:96] + stamp_hmac(raw) + raw[112:]


def key_file():
    path = f"/tmp/stamp_scapy_keys_{os.getpid()}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, f"# a comment\nother {'00' * 16}\n{KEY_ID} {KEY.hex()}\n".encode())
    os.close(fd)
    return path

NTP_OFFSET = 2208988800


def check(cond, what):
    if not cond:
        print("FAIL " + what, flush=True)
        sys.exit(1)
    print("ok   " + what, flush=True)


def wait_bound(port, seconds=10):
    """Waits until a UDP socket is bound to port (the responder is up; on a loaded host it may
    take longer than a fixed pause), from /proc/net/udp and udp6."""
    deadline = time.time() + seconds
    want = ":%04X" % port
    while time.time() < deadline:
        for table in ("/proc/net/udp", "/proc/net/udp6"):
            try:
                with open(table) as f:
                    next(f)  # the header
                    if any(line.split()[1].endswith(want) for line in f):
                        return
            except OSError:
                pass
        time.sleep(0.05)
    check(False, f"the responder's reflector is bound to UDP port {port}")


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scapy_sender_against_our_reflector(bindir):
    stamp_port = free_udp_port()
    ctl_port = free_udp_port()
    responder = subprocess.Popen([os.path.join(bindir, "nmprobe-responder"), "--port", str(ctl_port), "--bind",
                                  "127.0.0.1", "--stamp-port", str(stamp_port), "--quiet"])
    try:
        wait_bound(stamp_port)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 61)
        s.settimeout(2)
        answers = 0
        for seq in range(20):
            sent_ts = time.time() + NTP_OFFSET
            pkt = Sender(seq=seq, ts=sent_ts, ssid=4242,
                         err_estimate=ErrorEstimate(S=1, Z=0, scale=10, multiplier=3))
            s.sendto(bytes(pkt), ("127.0.0.1", stamp_port))
            data, _ = s.recvfrom(2048)
            r = Reflector(data)
            ok = (r.seq_sender == seq and abs(float(r.ts_sender) - sent_ts) < 1e-6 and r.ssid == 4242
                  and r.err_estimate_sender.S == 1 and r.err_estimate_sender.scale == 10
                  and r.err_estimate_sender.multiplier == 3 and r.ttl_sender == 61 and r.seq == seq
                  and r.err_estimate.Z == 0 and r.err_estimate.multiplier > 0
                  and float(r.ts_sender) <= float(r.ts_rx) + 1e-3 <= float(r.ts) + 2e-3
                  and len(data) == len(bytes(pkt)))
            if not ok:
                print(r.show(dump=True))
            check(ok, f"scapy sender seq {seq}: reflection decodes and echoes seq, timestamp, SSID, "
                      f"error estimate and TTL {r.ttl_sender}")
            answers += 1
        check(answers == 20, "nmprobe-responder reflected all 20 of scapy's test packets")
    finally:
        responder.terminate()
        responder.wait(10)


def our_sender_against_scapy_reflector(bindir):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.settimeout(5)
    seen = []
    problems = []

    def reflect():
        try:
            while len(seen) < 50:
                data, peer = s.recvfrom(2048)
                t2 = time.time() + NTP_OFFSET
                p = Sender(data)
                if not (len(data) == 44 and p.ssid == 77 and p.err_estimate.Z == 0 and p.mbz == 0
                        and abs(float(p.ts) - t2) < 1.0):
                    problems.append(p.show(dump=True))
                seen.append(p.seq)
                r = Reflector(seq=p.seq, ts=time.time() + NTP_OFFSET, ssid=p.ssid, ts_rx=t2, seq_sender=p.seq,
                              ts_sender=p.ts, err_estimate=ErrorEstimate(S=0, Z=0, scale=0, multiplier=200),
                              err_estimate_sender=p.err_estimate, ttl_sender=64)
                s.sendto(bytes(r), peer)
        except socket.timeout:
            pass

    th = threading.Thread(target=reflect)
    th.start()
    out = subprocess.run([os.path.join(bindir, "nmprobe"), "stamp", "--host", "127.0.0.1", "--port", str(port),
                          "--count", "50", "--interval-us", "2000", "--ssid", "77", "--json"],
                         capture_output=True, text=True, timeout=60)
    th.join()
    check(out.returncode == 0, f"nmprobe stamp against scapy's reflector exits 0 ({out.stderr.strip()})")
    check(not problems, "every nmprobe test packet decodes with scapy: 44 bytes, SSID 77, NTP, MBZ zero"
          + ("" if not problems else "\n" + problems[0]))
    check(seen == list(range(50)), f"sequence numbers 0..49 in order (got {len(seen)})")
    r = json.loads(out.stdout)
    check(r["received"] == 50 and r["lost"] == 0 and r["invalid"] == 0,
          f"nmprobe read all 50 scapy reflections (received {r['received']}, invalid {r['invalid']})")
    check(0 < r["minRttMs"] < 50 and r["reflectorSynchronised"] == 0,
          f"round trip {r['minRttMs']:.3f} ms, reflector unsynchronised as it said")
    # scapy's reflector stated 200 * 2^-32 s
    check(abs(r["reflectorErrorMs"] - 200 * 2 ** -32 * 1e3) < 1e-6, f"reflector error {r['reflectorErrorMs']} ms as stated")


def scapy_auth_sender_against_our_reflector(bindir, keys):
    stamp_port = free_udp_port()
    ctl_port = free_udp_port()
    responder = subprocess.Popen([os.path.join(bindir, "nmprobe-responder"), "--port", str(ctl_port), "--bind",
                                  "127.0.0.1", "--stamp-port", str(stamp_port), "--stamp-key-file", keys,
                                  "--stamp-stateful"], stderr=subprocess.PIPE, text=True)
    try:
        wait_bound(stamp_port)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 59)
        s.settimeout(2)
        check(len(bytes(AuthSender())) == 112 and len(bytes(AuthReflector())) == 112,
              "the authenticated layouts declared here are 112 octets, as RFC 8762 gives them")
        for seq in range(20):
            sent_ts = time.time() + NTP_OFFSET
            pad = 0 if seq % 2 == 0 else 28
            pkt = signed(AuthSender(seq=seq, ts=sent_ts, ssid=515,
                                    err_estimate=ErrorEstimate(S=0, Z=0, scale=2, multiplier=9)), pad)
            s.sendto(pkt, ("127.0.0.1", stamp_port))
            data, _ = s.recvfrom(2048)
            r = AuthReflector(data[:112])
            ok = (len(data) == len(pkt) and hmac.compare_digest(r.hmac, stamp_hmac(data))
                  and r.seq_sender == seq and r.seq == seq and abs(float(r.ts_sender) - sent_ts) < 1e-6
                  and r.ssid == 515 and r.err_estimate_sender.scale == 2 and r.err_estimate_sender.multiplier == 9
                  and r.ttl_sender == 59 and r.err_estimate.Z == 0 and r.err_estimate.multiplier > 0
                  and float(r.ts_sender) <= float(r.ts_rx) + 1e-3 <= float(r.ts) + 2e-3
                  and all(getattr(r, f) == b"\0" * len(getattr(r, f)) for f in ("mbz0", "mbz1", "mbz2", "mbz3",
                                                                             "mbz4", "mbz5"))
                  and data[112:] == b"\0" * pad)
            if not ok:
                print(r.show(dump=True))
            check(ok, f"authenticated seq {seq} ({len(pkt)} octets): the reflection's HMAC verifies in Python, "
                      f"MBZ zero, seq, timestamp, SSID, error estimate and TTL echoed")
        s.settimeout(0.3)
        bad = bytearray(signed(AuthSender(seq=99, ts=time.time() + NTP_OFFSET, ssid=515)))
        bad[100] ^= 0x80
        plain = bytes(Sender(seq=100, ts=time.time() + NTP_OFFSET, ssid=515))
        for what, pkt in (("a wrong HMAC", bytes(bad)), ("an unauthenticated packet", plain)):
            s.sendto(pkt, ("127.0.0.1", stamp_port))
            try:
                s.recvfrom(2048)
                check(False, f"{what} is not answered")
            except socket.timeout:
                check(True, f"{what} is not answered")
    finally:
        responder.terminate()
        _, log = responder.communicate(timeout=10)
    check("authenticated packets only" in log and "20 reflected" in log and "2 failed authentication" in log,
          "the responder logs its authenticated mode, 20 reflected and 2 failed authentication")


def our_auth_sender_against_scapy_reflector(bindir, keys):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.settimeout(5)
    seen = []
    problems = []

    def reflect():
        try:
            while len(seen) < 30:
                data, peer = s.recvfrom(2048)
                t2 = time.time() + NTP_OFFSET
                p = AuthSender(data)
                if not (len(data) == 112 and hmac.compare_digest(p.hmac, stamp_hmac(data)) and p.ssid == 31
                        and p.mbz0 == b"\0" * 12 and p.mbz1 == b"\0" * 68 and abs(float(p.ts) - t2) < 1.0):
                    problems.append(p.show(dump=True))
                seen.append(p.seq)
                r = AuthReflector(seq=p.seq, ts=time.time() + NTP_OFFSET, ssid=p.ssid, ts_rx=t2, seq_sender=p.seq,
                                  ts_sender=p.ts, err_estimate=ErrorEstimate(S=0, Z=0, scale=0, multiplier=200),
                                  err_estimate_sender=p.err_estimate, ttl_sender=64)
                out = bytearray(signed(r))
                if p.seq == 7:
                    out[60] ^= 1  # changed on the way: nmprobe must not count it
                s.sendto(bytes(out), peer)
        except socket.timeout:
            pass

    th = threading.Thread(target=reflect)
    th.start()
    out = subprocess.run([os.path.join(bindir, "nmprobe"), "stamp", "--host", "127.0.0.1", "--port", str(port),
                          "--count", "30", "--interval-us", "2000", "--ssid", "31", "--auth", "--key-id", KEY_ID,
                          "--key-file", keys, "--timeout-ms", "300", "--json", "--frames"],
                         capture_output=True, text=True, timeout=60)
    th.join()
    check(out.returncode == 0, f"nmprobe stamp --auth against the authenticated scapy reflector exits 0 "
                               f"({out.stderr.strip()})")
    check(not problems, "every nmprobe test packet decodes in the authenticated layout: 112 octets, HMAC verifies "
          "in Python, SSID 31, MBZ zero" + ("" if not problems else "\n" + problems[0]))
    check(seen == list(range(30)), f"sequence numbers 0..29 in order (got {len(seen)})")
    r = json.loads(out.stdout)
    check(r["authenticated"] == 1 and r["received"] == 29 and r["authFailed"] == 1 and r["lost"] == 1,
          f"nmprobe counted 29 reflections and refused the one signed wrongly (received {r['received']}, "
          f"authFailed {r['authFailed']})")
    rtts = [f["rttNanos"] for f in r["frames"]]
    check(len(rtts) == 30 and rtts[7] == -1 and all(rtt >= 0 for i, rtt in enumerate(rtts) if i != 7),
          "packet 7 is lost, not measured; the other 29 have round trips")


def main():
    bindir = sys.argv[1]
    scapy_sender_against_our_reflector(bindir)
    our_sender_against_scapy_reflector(bindir)
    keys = key_file()
    try:
        scapy_auth_sender_against_our_reflector(bindir, keys)
        our_auth_sender_against_scapy_reflector(bindir, keys)
    finally:
        os.unlink(keys)
    print("stamp scapy interop passed")


if __name__ == "__main__":
    main()
