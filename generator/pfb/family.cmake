warpforge_family(NAME pfb FACTORY pfbFamily
  SOURCES PfbSpec.cpp PfbWeights.cpp PfbGeometry.cpp PfbFftCode.cpp PfbFirEmitter.cpp PfbPostParts.cpp PfbPostEmitter.cpp PfbPostSpectrumEmitter.cpp PfbPostItemEmitter.cpp PfbPlan.cpp PfbFused.cpp PfbData.cpp
          PfbBench.cpp PfbSweep.cpp PfbFamily.cpp)
