BR/features/features.1/features.1.0/block/block.1/avgpool/GlobalAveragePool_output_0J hñÏ½%‰>é$½
i\>q´:>Ëþ>>jH=ò¥Í>