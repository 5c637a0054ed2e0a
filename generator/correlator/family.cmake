warpforge_family(NAME correlator FACTORY correlatorFamily
  SOURCES CorrelatorSpec.cpp CorrelatorLayouts.cpp DeviceHelpers.cpp CorrelatorEmitter.cpp CorrelatorFill.cpp ReduceEmitter.cpp CorrelatorPlan.cpp
          CorrelatorData.cpp CorrelatorFamily.cpp Pipeline.cpp PipelineCheck.cpp PipelineEmitter.cpp CorrelatorModel.cpp CorrelatorSweep.cpp
          VisibilityStore.cpp PipelineTriangle.cpp PipelineTransform.cpp PipelineSync.cpp
          ReduceVariants.cpp CorrelatorTune.cpp PipelineDirect.cpp PipelineDirectEmitter.cpp
          PipelineDirectStaging.cpp PipelineDirectStore.cpp
          CorrelatorDirectVariants.cpp)
