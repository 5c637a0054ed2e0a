warpforge_family(NAME tc_fft FACTORY tcFftFamily
  SOURCES TcFftParser.cpp PhasePlan.cpp TcFftEmitter.cpp TcFftLaunch.cpp TcFftData.cpp TcFftBench.cpp TcFftFamily.cpp)
