warpforge_family(NAME beamformer FACTORY beamformerFamily
  SOURCES BeamformerSpec.cpp BeamformerLayouts.cpp BeamformerEmitter.cpp BeamformerLoad.cpp BeamformerHelpers.cpp BeamformerEpilogue.cpp BeamformerWgmma.cpp BeamformerData.cpp BeamformerFamily.cpp BeamformerTune.cpp)
