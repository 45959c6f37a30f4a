package org.nmws.probe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lets one caller watch and cancel one running native test from another thread. The cancel flag
 * lives in a small direct buffer that the native loop reads on every iteration, so {@link
 * #cancel()} takes effect within about 50 ms without any JNI call. A control serves one test at a
 * time; using it for two concurrent tests fails with {@link IllegalStateException}.
 */
public final class ProbeControl {

  private static final VarHandle INT_VIEW =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  private final ByteBuffer cancelFlag = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
  private final ProgressListener listener;
  private final AtomicBoolean inUse = new AtomicBoolean();
  private volatile boolean listenerFailed;

  /** A control without a progress listener. */
  public ProbeControl() {
    this((done, total) -> {});
  }

  /** A control that reports progress to {@code listener}. */
  public ProbeControl(ProgressListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Asks the running (or next) test to stop; it then returns what it measured so far. */
  public void cancel() {
    INT_VIEW.setVolatile(cancelFlag, 0, 1);
  }

  /** Whether {@link #cancel()} was called. */
  public boolean isCancelled() {
    return (int) INT_VIEW.getVolatile(cancelFlag, 0) != 0;
  }

  ByteBuffer cancelFlag() {
    return cancelFlag;
  }

  void acquire() {
    if (!inUse.compareAndSet(false, true)) {
      throw new IllegalStateException("ProbeControl is already in use by a running test");
    }
  }

  void release() {
    inUse.set(false);
  }

  /** Called from native code (JNI) on the test's thread. Never throws. */
  @SuppressWarnings("unused")
  private void progress(int done, int total) {
    if (listenerFailed) {
      return;
    }
    try {
      listener.onProgress(done, total);
    } catch (RuntimeException | Error e) {
      listenerFailed = true;
    }
  }
}
