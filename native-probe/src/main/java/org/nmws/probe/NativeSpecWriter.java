package org.nmws.probe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a test's spec as named, typed fields in one flat buffer (the engine's nmp_pack.h
 * format, little-endian), the form in which specs cross JNI. The engine checks every field
 * against its kind's table (name, type, range); the spec records have validated them already.
 */
public final class NativeSpecWriter {

  private byte[] buf = new byte[256];
  private int len;

  NativeSpecWriter() {}

  public NativeSpecWriter i64(String name, long v) {
    header(NativeRecord.I64, name, 8).putLong(v);
    return this;
  }

  /** A boolean, as an I64 of 0 or 1. */
  public NativeSpecWriter bool(String name, boolean v) {
    return i64(name, v ? 1 : 0);
  }

  public NativeSpecWriter f64(String name, double v) {
    header(NativeRecord.F64, name, 8).putDouble(v);
    return this;
  }

  public NativeSpecWriter str(String name, String v) {
    byte[] s = v.getBytes(StandardCharsets.UTF_8);
    header(NativeRecord.STR, name, 4 + s.length).putInt(s.length).put(s);
    return this;
  }

  public NativeSpecWriter i32s(String name, int[] v) {
    ByteBuffer b = header(NativeRecord.I32S, name, 4 + 4L * v.length).putInt(v.length);
    for (int x : v) {
      b.putInt(x);
    }
    return this;
  }

  public NativeSpecWriter i64s(String name, long[] v) {
    ByteBuffer b = header(NativeRecord.I64S, name, 4 + 8L * v.length).putInt(v.length);
    for (long x : v) {
      b.putLong(x);
    }
    return this;
  }

  public NativeSpecWriter f64s(String name, double[] v) {
    ByteBuffer b = header(NativeRecord.F64S, name, 4 + 8L * v.length).putInt(v.length);
    for (double x : v) {
      b.putDouble(x);
    }
    return this;
  }

  public NativeSpecWriter strs(String name, String[] v) {
    byte[][] e = new byte[v.length][];
    long total = 4;
    for (int i = 0; i < v.length; i++) {
      e[i] = v[i].getBytes(StandardCharsets.UTF_8);
      total += 4 + e[i].length;
    }
    ByteBuffer b = header(NativeRecord.STRS, name, total).putInt(v.length);
    for (byte[] s : e) {
      b.putInt(s.length).put(s);
    }
    return this;
  }

  /** The fields written so far. */
  byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  /** Appends type and name, reserves the payload and returns a buffer positioned at it. */
  private ByteBuffer header(int type, String name, long payload) {
    byte[] n = name.getBytes(StandardCharsets.US_ASCII);
    if (n.length < 1 || n.length > 63 || payload > Integer.MAX_VALUE - 66 - len) {
      throw new IllegalArgumentException("spec field '" + name + "' has a bad name or is too large");
    }
    int need = 2 + n.length + (int) payload;
    if (len + need > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + need));
    }
    ByteBuffer b = ByteBuffer.wrap(buf, len, need).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) type).put((byte) n.length).put(n);
    len += need;
    return b;
  }
}
