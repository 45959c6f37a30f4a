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

Prints one line per check; exits non-zero on the first wrong answer.

usage: stamp_scapy.py BINDIR"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

from scapy.contrib.stamp import (STAMPSessionReflectorTestUnauthenticated as Reflector,
                                 STAMPSessionSenderTestUnauthenticated as Sender, ErrorEstimate)

NTP_OFFSET = 2208988800


def check(cond, what):
    if not cond:
        print("FAIL " + what, flush=True)
        sys.exit(1)
    print("ok   " + what, flush=True)


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
        time.sleep(0.3)
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


def main():
    bindir = sys.argv[1]
    scapy_sender_against_our_reflector(bindir)
    our_sender_against_scapy_reflector(bindir)
    print("stamp scapy interop passed")


if __name__ == "__main__":
    main()
