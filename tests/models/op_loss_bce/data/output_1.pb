B
bce_logitsJٙA