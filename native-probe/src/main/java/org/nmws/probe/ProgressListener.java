package org.nmws.probe;

/**
 * Receives progress of a running native test: called on the thread that runs the test, at most
 * about every 100 ms and once at the end. Implementations must be fast and must not throw (an
 * exception is caught, logged nowhere, and stops further calls for that test).
 */
@FunctionalInterface
public interface ProgressListener {

  /**
   * @param done frames sent so far
   * @param total frames the test will send
   */
  void onProgress(int done, int total);
}
