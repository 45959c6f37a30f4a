package org.nmws.probe;

import java.util.List;

/**
 * Latency as a function of frame size: per-size RTT statistics and histograms, and the
 * least-squares line through the per-size minimum RTT (slope in microseconds per byte reflects the
 * sum of the transfer rates along the path; the intercept the fixed per-packet costs). Fit fields
 * are NaN when fewer than two sizes got answers.
 */
public record LatencyScanResult(
    List<SizePoint> points,
    double slopeUsPerByte,
    double interceptUs,
    double r2,
    String remoteAddress,
    boolean cancelled) {

  public LatencyScanResult {
    points = List.copyOf(points);
  }

  /** RTT figures of one frame size (ms; NaN when nothing came back). */
  public record SizePoint(
      int size,
      int sent,
      int received,
      double minRttMs,
      double meanRttMs,
      double medianRttMs,
      double maxRttMs,
      double histogramStartNanos,
      double histogramBinWidthNanos,
      long[] histogram,
      long histogramUnder,
      long histogramOver) {
    @Override
    public long[] histogram() {
      return histogram.clone();
    }
  }
}
