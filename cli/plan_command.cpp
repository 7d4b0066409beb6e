#include "plan_command.hpp"
