package org.nmws.probe;

import java.time.Instant;

/**
 * What a responder's calendar answered a {@link SlotRequest}: a granted slot (its reservation id,
 * start and end), or busy with the earliest start it would grant now and who holds the wanted
 * start; and how many sessions the responder serves at once, when it says.
 *
 * @param granted whether the slot is held for this point
 * @param reservation the reservation's id (granted), 0 otherwise
 * @param start the granted start, or null
 * @param end the granted end, or null
 * @param next refused: the earliest free start, or null
 * @param heldBy refused: the holder label of the reservation in the way ("a session in
 *     progress" for an on-demand test), or null
 * @param sessions the sessions the responder serves at once (nmprobe-responder --sessions), 0
 *     when it did not say (an older responder, or a release)
 */
public record SlotAnswer(boolean granted, long reservation, Instant start, Instant end, Instant next,
    String heldBy, int sessions) {

  static SlotAnswer fromNative(NativeRecord r) {
    int sessions = r.has("sessions") ? (int) r.i64("sessions") : 0;
    if (r.bool("granted")) {
      return new SlotAnswer(true, r.i64("reservation"), Instant.ofEpochMilli(r.i64("startMs")),
          Instant.ofEpochMilli(r.i64("endMs")), null, null, sessions);
    }
    if (!r.has("nextMs")) { // a RELEASE's answer: the reservation given back
      return new SlotAnswer(false, r.i64("reservation"), null, null, null, null, 0);
    }
    return new SlotAnswer(false, 0, null, null, Instant.ofEpochMilli(r.i64("nextMs")), r.str("heldBy"), sessions);
  }
}
