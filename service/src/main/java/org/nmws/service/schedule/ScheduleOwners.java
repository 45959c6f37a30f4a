package org.nmws.service.schedule;

import org.nmws.service.measure.Caller;

/**
 * Who a schedule's runs are run as: its owner, with the roles and limits the owner has when
 * the run starts (an account whose measure role was taken away runs nothing more); the
 * service itself for schedules of the configuration. Implemented where identities are known
 * (nmws.security); an interface here so that the scheduler does not depend on it.
 */
public interface ScheduleOwners {
    Caller callerOf(Schedule s);
}
