package org.nmws.service.archive;

/**
 * What one retention pass removed.
 *
 * @param rawObservations observations whose raw frames were removed (their summaries stay)
 * @param rawFrames frames removed with them
 * @param observations observations removed whole, summary and any raw frames left
 */
public record Purged(long rawObservations, long rawFrames, long observations) {
}
