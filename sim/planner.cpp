#include "planner.hpp"
