warpforge_family(NAME tc_fft FACTORY tcFftFamily
  SOURCES TcFftParser.cpp PhasePlan.cpp TcFftEmitter.cpp TcFftRowsEmitter.cpp TcFftPairEmitter.cpp TcFftPairBuffer.cpp TcFftQuadEmitter.cpp TcFftQuadHalfPass.cpp TcFftQuadTwist.cpp TcFftLaunch.cpp TcFftData.cpp TcFftBench.cpp TcFftFamily.cpp
          Synthesizer.cpp SynthesizerSearch.cpp SynthesizerTwiddles.cpp SynthesizerProgram.cpp TcFftSpecJson.cpp SynthesisReport.cpp TcFftIo.cpp)
