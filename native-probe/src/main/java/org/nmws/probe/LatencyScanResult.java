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

  /** Reads the engine's packed "scan" result (point i's histogram at i * histogramBins). */
  static LatencyScanResult fromNative(NativeRecord r) {
    int n = r.rows("points.size", "points.sent", "points.received", "points.minRttMs",
        "points.meanRttMs", "points.medianRttMs", "points.maxRttMs", "points.histogramStartNs",
        "points.histogramBinWidthNs", "points.histogramUnder", "points.histogramOver");
    int bins = r.i32("histogramBins");
    long[] hist = r.longs("points.histogram");
    if (bins < 0 || hist.length != (long) n * bins) {
        throw NativeRecord.malformed("engine result points.histogram has " + hist.length
            + " counts, not " + n + " points * " + bins + " bins");
    }
    int[] size = r.ints("points.size");
    int[] sent = r.ints("points.sent");
    int[] received = r.ints("points.received");
    double[] min = r.doubles("points.minRttMs");
    double[] mean = r.doubles("points.meanRttMs");
    double[] median = r.doubles("points.medianRttMs");
    double[] max = r.doubles("points.maxRttMs");
    double[] start = r.doubles("points.histogramStartNs");
    double[] width = r.doubles("points.histogramBinWidthNs");
    long[] under = r.longs("points.histogramUnder");
    long[] over = r.longs("points.histogramOver");
    List<SizePoint> points = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      points.add(new SizePoint(size[i], sent[i], received[i], min[i], mean[i], median[i], max[i],
          start[i], width[i], java.util.Arrays.copyOfRange(hist, i * bins, (i + 1) * bins),
          under[i], over[i]));
    }
    return new LatencyScanResult(points, r.f64("slopeUsPerByte"), r.f64("interceptUs"),
        r.f64("r2"), r.str("remoteAddress"), r.bool("cancelled"));
  }
}
