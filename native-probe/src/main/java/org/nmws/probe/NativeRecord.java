package org.nmws.probe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A packed engine result (named, typed fields in one flat buffer; format in the engine's
 * nmp_pack.h), parsed once. Every length is checked against the buffer, so a malformed buffer is
 * a {@link ProbeException} naming the byte where it went wrong, never an index error; a missing
 * or mistyped field is a {@link ProbeException} naming the field ("engine result lacks field
 * X"). Readers of a result ask for each figure by the name the engine packs it under.
 */
public final class NativeRecord {

  static final int I64 = 1;
  static final int F64 = 2;
  static final int STR = 3;
  static final int I32S = 4;
  static final int I64S = 5;
  static final int F64S = 6;
  static final int STRS = 7;

  private static final String[] TYPE_NAMES = {
    "?", "I64", "F64", "STR", "I32S", "I64S", "F64S", "STRS"
  };

  /** Field name to value: Long, Double, String, int[], long[], double[] or String[]. */
  private final Map<String, Object> fields;

  private NativeRecord(Map<String, Object> fields) {
    this.fields = fields;
  }

  /**
   * Parses a packed buffer. Names are unique in a buffer; should one repeat, the first wins.
   *
   * @throws ProbeException (reason INTERNAL) when the buffer is malformed
   */
  static NativeRecord parse(byte[] packed) {
    Objects.requireNonNull(packed, "packed");
    ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN);
    Map<String, Object> fields = new HashMap<>();
    while (b.hasRemaining()) {
      int at = b.position();
      need(b, 2, at);
      int type = b.get() & 0xff;
      int namelen = b.get() & 0xff;
      need(b, namelen, at);
      byte[] nameBytes = new byte[namelen];
      b.get(nameBytes);
      if (!nameOk(nameBytes)) {
        throw malformed("packed field at byte " + at + ": bad name");
      }
      String name = new String(nameBytes, StandardCharsets.US_ASCII);
      Object value =
          switch (type) {
            case I64 -> {
              need(b, 8, at);
              yield b.getLong();
            }
            case F64 -> {
              need(b, 8, at);
              yield b.getDouble();
            }
            case STR -> string(b, count(b, 1, at), at);
            case I32S -> {
              int[] v = new int[count(b, 4, at)];
              b.asIntBuffer().get(v);
              b.position(b.position() + 4 * v.length);
              yield v;
            }
            case I64S -> {
              long[] v = new long[count(b, 8, at)];
              b.asLongBuffer().get(v);
              b.position(b.position() + 8 * v.length);
              yield v;
            }
            case F64S -> {
              double[] v = new double[count(b, 8, at)];
              b.asDoubleBuffer().get(v);
              b.position(b.position() + 8 * v.length);
              yield v;
            }
            case STRS -> {
              // each entry needs at least its 4-byte length: bound n before allocating
              String[] v = new String[count(b, 4, at)];
              for (int i = 0; i < v.length; i++) {
                v[i] = string(b, count(b, 1, at), at);
              }
              yield v;
            }
            default -> throw malformed(
                "packed field '" + name + "' at byte " + at + ": unknown type " + type);
          };
      fields.putIfAbsent(name, value);
    }
    return new NativeRecord(fields);
  }

  /** Whether the result holds a field of that name. */
  public boolean has(String name) {
    return fields.containsKey(name);
  }

  public long i64(String name) {
    return get(name, Long.class, I64);
  }

  /** An I64 field that must fit an int (counts, ports, sizes). */
  public int i32(String name) {
    long v = i64(name);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw malformed("engine result field " + name + " = " + v + " does not fit an int");
    }
    return (int) v;
  }

  /** An I64 field holding 0 or 1. */
  public boolean bool(String name) {
    return i64(name) != 0;
  }

  public double f64(String name) {
    return get(name, Double.class, F64);
  }

  public String str(String name) {
    return get(name, String.class, STR);
  }

  /** An I32S field, or an I64S field whose every element fits an int. */
  public int[] ints(String name) {
    Object v = fields.get(name);
    if (v instanceof long[] l) {
      int[] out = new int[l.length];
      for (int i = 0; i < l.length; i++) {
        if (l[i] < Integer.MIN_VALUE || l[i] > Integer.MAX_VALUE) {
          throw malformed("engine result field " + name + "[" + i + "] = " + l[i]
              + " does not fit an int");
        }
        out[i] = (int) l[i];
      }
      return out;
    }
    return get(name, int[].class, I32S).clone();
  }

  /** An I64S field, or an I32S field widened. */
  public long[] longs(String name) {
    Object v = fields.get(name);
    if (v instanceof int[] a) {
      long[] out = new long[a.length];
      for (int i = 0; i < a.length; i++) {
        out[i] = a[i];
      }
      return out;
    }
    return get(name, long[].class, I64S).clone();
  }

  public double[] doubles(String name) {
    return get(name, double[].class, F64S).clone();
  }

  public String[] strings(String name) {
    return get(name, String[].class, STRS).clone();
  }

  /**
   * The common length of the columns of one table ("hops.ttl", "hops.address", ...).
   *
   * @throws ProbeException when a column is missing or their lengths differ
   */
  int rows(String... columns) {
    int n = -1;
    for (String c : columns) {
      Object v = fields.get(c);
      if (v == null) {
        throw malformed("engine result lacks field " + c);
      }
      int len = java.lang.reflect.Array.getLength(v);
      if (n >= 0 && len != n) {
        throw malformed("engine result column " + c + " has " + len + " rows, not " + n);
      }
      n = len;
    }
    return Math.max(n, 0);
  }

  private <T> T get(String name, Class<T> type, int code) {
    Object v = fields.get(name);
    if (v == null) {
      throw malformed("engine result lacks field " + name);
    }
    if (!type.isInstance(v)) {
      throw malformed("engine result field " + name + " is " + typeName(v) + ", not "
          + TYPE_NAMES[code]);
    }
    return type.cast(v);
  }

  private static String typeName(Object v) {
    if (v instanceof Long) {
      return "I64";
    } else if (v instanceof Double) {
      return "F64";
    } else if (v instanceof String) {
      return "STR";
    } else if (v instanceof int[]) {
      return "I32S";
    } else if (v instanceof long[]) {
      return "I64S";
    } else if (v instanceof double[]) {
      return "F64S";
    }
    return "STRS";
  }

  /** Reads a u32 element count and checks that n elements of 'width' bytes remain. */
  private static int count(ByteBuffer b, int width, int at) {
    need(b, 4, at);
    long n = Integer.toUnsignedLong(b.getInt());
    if (n > b.remaining() / width) {
      throw malformed("packed field at byte " + at + ": " + n + " elements run past the end of the "
          + "buffer (" + b.capacity() + " bytes)");
    }
    return (int) n;
  }

  private static String string(ByteBuffer b, int n, int at) {
    byte[] s = new byte[n];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private static void need(ByteBuffer b, int n, int at) {
    if (b.remaining() < n) {
      throw malformed("packed field at byte " + at + ": runs past the end of the buffer ("
          + b.capacity() + " bytes)");
    }
  }

  private static boolean nameOk(byte[] name) {
    if (name.length == 0) {
      return false;
    }
    for (byte c : name) {
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == '.';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  static ProbeException malformed(String message) {
    return new ProbeException(ProbeException.Reason.INTERNAL, 0, message, null);
  }

  @Override
  public String toString() {
    return "NativeRecord" + fields.keySet();
  }
}
