warpforge_family(NAME stockham FACTORY stockhamFamily
  SOURCES StockhamSpec.cpp StockhamPlan.cpp StockhamEmitter.cpp Geometry.cpp SpillFree.cpp LongFftFactors.cpp StockhamLaunch.cpp StockhamLayout.cpp StockhamData.cpp
          StockhamTune.cpp StockhamFamily.cpp BluesteinLength.cpp
          StockhamSweep.cpp)
