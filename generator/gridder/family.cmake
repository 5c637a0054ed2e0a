warpforge_family(NAME gridder FACTORY gridderFamily
  SOURCES GridderSpec.cpp GridderPlanner.cpp GridderData.cpp GridderReference.cpp GridderEmit.cpp GridderKernels.cpp GridderMmaFragments.cpp GridderMmaKernel.cpp GridderDegridMmaKernel.cpp GridderLaunch.cpp
          GridderCheck.cpp GridderBench.cpp GridderFamily.cpp)
