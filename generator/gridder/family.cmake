warpforge_family(NAME gridder FACTORY gridderFamily
  SOURCES GridderSpec.cpp GridderPlanner.cpp GridderData.cpp GridderReference.cpp GridderEmit.cpp GridderKernels.cpp GridderMmaFragments.cpp GridderMmaKernel.cpp GridderDegridMmaKernel.cpp GridderLaunch.cpp
          GridderCheck.cpp GridderBench.cpp GridderFamily.cpp)
# The subgrid FFT is another family's spec parsed through the registry (parseSpec): the registry's library.
target_link_libraries(warpforge_family_gridder PUBLIC warpforge_generator)
