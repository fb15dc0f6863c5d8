B5/features/denseblock3/denselayer1/conv2/Conv_output_0J€¨ƒæ¾‰r…>˜®¿|Ö,ÀÔ›½¿Ãì¿J½óR?dâ6¿Œ@½?7(¢>ƒÐ›?a•>ÀÈ½N¥<œ+c¾
?®¾‹Þš¾Z=^vž?Þ>Æ1¿ ‹T?>žÎ¼š0Ë?ÉH¿ \>JÁb¾½@¿Uc=ˆØ§¾R?