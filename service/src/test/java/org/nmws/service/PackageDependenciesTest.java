package org.nmws.service;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The feature packages of the service depend on each other in one direction only
 * (transports on dialects, dialects on measurement and archive, both on the observation
 * records), so a package can be read, tested and changed without the ones above it.
 */
class PackageDependenciesTest {

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.nmws.service");

    @Test
    void featurePackagesHaveNoCycles() {
        slices().matching("org.nmws.service.(*)..").should().beFreeOfCycles().check(SERVICE);
    }
}
