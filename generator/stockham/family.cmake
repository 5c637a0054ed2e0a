warpforge_family(NAME stockham FACTORY stockhamFamily
  SOURCES StockhamSpec.cpp FactorizationModel.cpp BluesteinLength.cpp
          StockhamPlan.cpp LongFftPlan.cpp BluesteinPlan.cpp RealPlan.cpp
          StockhamEmitter.cpp KernelContext.cpp ElementIo.cpp Tiling.cpp RowTile.cpp ColumnTile.cpp FusedPlanes.cpp
          RealPlanes.cpp RadixPass.cpp ButterflyPass.cpp CoopPrimePass.cpp StreamedPrimePass.cpp RealFusion.cpp
          MirrorPairs.cpp
          Geometry.cpp SpillFree.cpp LongFftFactors.cpp StockhamLaunch.cpp StockhamLayout.cpp StockhamData.cpp
          StockhamTune.cpp StockhamFamily.cpp StockhamSweep.cpp)
