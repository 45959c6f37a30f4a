package org.nmws.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The feature packages of the service depend on each other in one direction only, as
 * ARCHITECTURE.md draws it: transports (HTTP, SOAP, XML-RPC, the JSON API, security) on
 * dialects (NMWG v2, GGF v1), dialects on use cases (measure, cost, diagnosis, schedules),
 * use cases on the measurement and archive services, everything on the observation records.
 * A lower layer never reaches up, and no dialect calls another, so a package can be read,
 * tested and changed without the ones above it.
 */
class PackageDependenciesTest {

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.nmws.service");

    @Test
    void featurePackagesHaveNoCycles() {
        slices().matching("org.nmws.service.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void layersDependDownwardsOnly() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Transports").definedBy("..service.transport..", "..service.api..", "..service.xmlrpc..",
                        "..service.security..", "..service.metrics..", "..service.dashboard..", "..service.web..",
                        "..service.archiver..")
                .layer("Dialects").definedBy("..service.nmwg..", "..service.v1..", "..service.perfsonar..")
                .layer("UseCases").definedBy("..service.usecase..", "..service.cost..", "..service.schedule..",
                        "..service.psconfig..", "..service.grid..")
                .layer("Services").definedBy("..service.measure..", "..service.kind..", "..service.archive..",
                        "..service.mesh..")
                .layer("Observation").definedBy("..service.observation..")
                .whereLayer("Transports").mayNotBeAccessedByAnyLayer()
                .whereLayer("Dialects").mayOnlyBeAccessedByLayers("Transports")
                .whereLayer("UseCases").mayOnlyBeAccessedByLayers("Transports", "Dialects")
                .whereLayer("Services").mayOnlyBeAccessedByLayers("Transports", "Dialects", "UseCases")
                .check(SERVICE);
    }

    @Test
    void noDialectCallsAnother() {
        noClasses().that().resideInAPackage("..service.v1..").should().dependOnClassesThat()
                .resideInAPackage("..service.nmwg..").check(SERVICE);
        noClasses().that().resideInAPackage("..service.nmwg..").should().dependOnClassesThat()
                .resideInAPackage("..service.v1..").check(SERVICE);
    }

    @Test
    void aKindKnowsNoDialect() {
        noClasses().that().resideInAPackage("..service.kind..").should().dependOnClassesThat()
                .resideInAnyPackage("..service.nmwg..", "..service.v1..", "..service.xmlrpc..", "..service.api..",
                        "..schema..").check(SERVICE);
    }
}
